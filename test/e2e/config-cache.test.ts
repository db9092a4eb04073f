import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
let cache: string;
beforeEach(() => {
  sb = new Sandbox();
  cache = path.join(sb.dir, "user-cache");
});
afterEach(() => sb.cleanup());

const env = () => ({ SSSF_CACHE_DIR: cache });

/** The one entry of the cache, parsed, with its path. */
function entry(): { file: string; json: { value: unknown; wire?: { build: string; data: unknown } } } {
  const names = readdirSync(cache).filter((name) => name.endsWith(".json"));
  expect(names).toHaveLength(1);
  const file = path.join(cache, names[0] ?? "");
  return { file, json: JSON.parse(readFileSync(file, "utf8")) };
}

describe("the built sssf's config cache", () => {
  it("keeps what its schema made of a config under its build id, and a later start reads that back", async () => {
    sb.setup([{ name: "planner", turns: [] }]);
    const first = await sb.run(["run", "prompt", "hello", "--agent", "planner", "--json"], env());
    expect(first.code).not.toBe(2);
    const { json } = entry();
    expect(json.wire?.build).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(json.wire?.data)).toContain('"planner"');
    // A later run takes the config from the entry: nothing new is parsed or kept.
    const second = await sb.run(["run", "prompt", "hello", "--agent", "planner", "--json"], env());
    expect(second.code).toBe(first.code);
    expect(entry().json).toEqual(json);
  });

  it("serves this build's entry without parsing the file again", async () => {
    sb.setup([{ name: "planner", turns: [] }]);
    await sb.run(["run", "prompt", "hello", "--agent", "planner", "--json"], env());
    const { file, json } = entry();
    const data = JSON.parse(JSON.stringify(json.wire?.data).replaceAll('"planner"', '"planted"'));
    writeFileSync(file, JSON.stringify({ ...json, wire: { build: json.wire?.build, data } }));
    // The roster now comes from the entry (the semantic checks still run on it: its prompts are missing).
    const result = await sb.run(["run", "prompt", "hello", "--agent", "planner", "--json"], env());
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.message).toContain("prompt_engineering/planted/system.md");
  });

  it("validates again what another build kept, and never takes its wire value", async () => {
    sb.setup([{ name: "planner", turns: [] }]);
    await sb.run(["run", "prompt", "hello", "--agent", "planner", "--json"], env());
    const { file, json } = entry();
    const data = JSON.parse(JSON.stringify(json.wire?.data).replaceAll('"planner"', '"planted"'));
    writeFileSync(file, JSON.stringify({ value: json.value, wire: { build: "another-build", data } }));
    const result = await sb.run(["run", "prompt", "hello", "--agent", "planner", "--json"], env());
    expect(result.stderr).not.toContain("planted");
    expect(result.stdout).not.toContain("planted");
    // The entry now holds this build's wire value again.
    expect(entry().json.wire?.build).toBe(json.wire?.build);
    expect(JSON.stringify(entry().json.wire?.data)).toContain('"planner"');
  });
});
