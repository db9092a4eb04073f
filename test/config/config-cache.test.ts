import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cachedConfig, keepConfig } from "../../src/config/config-cache.js";
import { loadConfig } from "../../src/library.js";
import { cacheDir } from "../../src/util/cache-dir.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
let saved: string | undefined;
let cache: string;
beforeEach(() => {
  repo = createTempRepo();
  saved = process.env.SSSF_CACHE_DIR;
  cache = path.join(repo.root, "cache");
  process.env.SSSF_CACHE_DIR = cache;
});
afterEach(() => {
  if (saved === undefined) delete process.env.SSSF_CACHE_DIR;
  else process.env.SSSF_CACHE_DIR = saved;
  repo.remove();
});

const CONFIG = `agents:
  - name: planner
    purpose: "plans: the work" # a comment YAML drops
    env: { LEVEL: "3" }
`;

const entries = () => (existsSync(cache) ? readdirSync(cache).filter((name) => name.endsWith(".json")) : []);

function load() {
  return loadConfig({ cwd: repo.root, knownRuntimes: ["pi", "exec"] });
}

describe("the config cache", () => {
  it("keeps the parsed YAML of a config text in a folder only its user may open, and loads the same config from it", () => {
    repo.writeConfig(CONFIG);
    writePrompts(repo, ["planner"]);
    const first = load();
    expect(entries()).toHaveLength(1);
    if (process.getuid) {
      expect(statSync(cache).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(cache, entries()[0] ?? "")).mode & 0o777).toBe(0o600);
    }
    const second = load();
    expect(second).toEqual(first);
    expect(second.agents[0]?.purpose).toBe("plans: the work");
    expect(second.agents[0]?.env).toEqual({ LEVEL: "3" });
  });

  it("is keyed by the text: an edited config is parsed again, never served from the old entry", () => {
    repo.writeConfig(CONFIG);
    writePrompts(repo, ["planner", "builder"]);
    expect(load().agents.map((a) => a.name)).toEqual(["planner"]);
    repo.writeConfig(`${CONFIG}  - name: builder\n`);
    expect(load().agents.map((a) => a.name)).toEqual(["planner", "builder"]);
    expect(entries()).toHaveLength(2);
  });

  it("serves what it holds only from a folder nobody else may write into", () => {
    repo.writeConfig(CONFIG);
    writePrompts(repo, ["planner", "intruder"]);
    load();
    const [entry = ""] = entries();
    // Someone rewrites the entry: the config would name another agent.
    const planted = { value: { agents: [{ name: "intruder" }] } };
    writeFileSync(path.join(cache, entry), JSON.stringify(planted));
    expect(load().agents.map((a) => a.name)).toEqual(["intruder"]); // the user's own folder is trusted
    if (!process.getuid) return;
    chmodSync(cache, 0o777);
    expect(cachedConfig(CONFIG)).toBeUndefined();
    expect(load().agents.map((a) => a.name)).toEqual(["planner"]);
  });

  it("reads a damaged entry as no entry", () => {
    repo.writeConfig(CONFIG);
    writePrompts(repo, ["planner"]);
    load();
    writeFileSync(path.join(cache, entries()[0] ?? ""), '{"value": {"agents": [');
    expect(load().agents.map((a) => a.name)).toEqual(["planner"]);
  });

  it("keeps nothing of a text with a YAML problem, and still reports it with its line", () => {
    repo.writeConfig("agents:\n  - name: planner\n  - name: [\n");
    expect(() => load()).toThrow(/line \d+, column \d+/);
    expect(entries()).toHaveLength(0);
  });

  it("keeps the value of a config the schema refuses, and refuses it again with the same problems", () => {
    repo.writeConfig("agents:\n  - name: planner\n    colour: red\n");
    const refusal = () => {
      try {
        load();
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error("the config was accepted");
    };
    const first = refusal();
    expect(first).toContain("colour");
    expect(entries()).toHaveLength(1);
    expect(refusal()).toBe(first);
  });

  it("never keeps a config that sets a secret-named variable, wherever its env is", () => {
    writePrompts(repo, ["planner"]);
    for (const text of [
      'agents:\n  - name: planner\n    env: { OPENAI_API_KEY: "sk-live-0123456789abcdefghij" }\n',
      "agents:\n  - name: planner\nquality:\n  test: { command: [npm, test], env: { NPM_TOKEN: abc123xyz } }\n",
      "agents:\n  - name: planner\n    env:\n      dbPassword: hunter2hunter2\n",
    ]) {
      repo.writeConfig(text);
      load();
    }
    expect(entries()).toEqual([]);
    // A variable that names no secret is kept as any other value.
    repo.writeConfig('agents:\n  - name: planner\n    env: { LOG_LEVEL: "debug" }\n');
    load();
    expect(entries()).toHaveLength(1);
  });

  it("is off with an empty SSSF_CACHE_DIR", () => {
    process.env.SSSF_CACHE_DIR = "";
    expect(cacheDir()).toBeNull();
    repo.writeConfig(CONFIG);
    writePrompts(repo, ["planner"]);
    load();
    expect(existsSync(cache)).toBe(false);
  });

  it("defaults to $XDG_CACHE_HOME/sssf, else ~/.cache/sssf", () => {
    expect(cacheDir({ XDG_CACHE_HOME: "/x/cache", HOME: "/home/u" })).toBe("/x/cache/sssf");
    expect(cacheDir({ HOME: "/home/u" })).toBe("/home/u/.cache/sssf");
    // A relative XDG_CACHE_HOME is invalid, as the XDG spec says.
    expect(cacheDir({ XDG_CACHE_HOME: "cache", HOME: "/home/u" })).toBe("/home/u/.cache/sssf");
  });

  it("keeps only plain JSON, so what is read back equals what was parsed", () => {
    keepConfig("a", { n: Number.POSITIVE_INFINITY });
    keepConfig("b", { when: new Date(0) });
    keepConfig("c", { list: [1, "two", null, true, { deep: -1.5 }] });
    expect(cachedConfig("a")).toBeUndefined();
    expect(cachedConfig("b")).toBeUndefined();
    expect(cachedConfig("c")).toEqual({ value: { list: [1, "two", null, true, { deep: -1.5 }] } });
  });

  it("keeps the folder small: past 256 entries the older half goes", () => {
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    for (let i = 0; i < 257; i++) keepConfig(`text ${i}`, { i });
    expect(entries().length).toBeLessThanOrEqual(256);
    expect(entries().length).toBeGreaterThanOrEqual(128);
    expect(cachedConfig("text 256")).toEqual({ value: { i: 256 } });
  });

  it("never stores the wire value when run from src/ (no build id to key it on)", () => {
    keepConfig("d", { agents: [] }, { agents: [] });
    const [entry = ""] = entries();
    expect(JSON.parse(readFileSync(path.join(cache, entry), "utf8"))).toEqual({ value: { agents: [] } });
  });
});
