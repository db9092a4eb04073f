import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findAgent } from "../../src/config/config-types.js";
import { AGENT_COLOR_PALETTE, DEFAULT_CONFIG_PATH, DEFAULT_DATA_DIR } from "../../src/config/load-config.js";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
});
afterEach(() => repo.remove());

const FULL = `# yaml-language-server: $schema=../../schema/sssf.config.schema.json
defaults:
  coding_agent: claude_code
  model: sonnet
  thinking: medium
  tools: [read, bash]
  data_dir: data
  timeouts: { idle_seconds: 60, wall_seconds: 600 }
agents:
  - name: planner
    purpose: Plans the work
  - name: builder
    color: "#123"
    model: opus
    thinking: high
    tools: []
    writes: ["src/**"]
    timeouts: { idle_seconds: 1.5 }
    env: { FOO: bar }
  - name: tester
    coding_agent: exec
    command: [node, agents/tester.mjs]
    prompt_engineering: { system: prompts/tester-system.md, user: prompts/tester-user.md }
observability:
  db: traces/run.db
limits: { retries: 3 }
quality:
  test: { command: [npm, test] }
  lint: { command: [npx, biome, check], timeout_seconds: 30, env: { CI: "1" } }
`;

describe("loadConfig with a full config", () => {
  it("applies inheritance, converts seconds to ms and makes every path absolute", () => {
    const file = repo.writeConfig(FULL);
    writePrompts(repo, ["planner", "builder"], "data");
    repo.write("prompts/tester-system.md", "system");
    repo.write("prompts/tester-user.md", "user");

    const config = loadConfig({ cwd: repo.root });
    const dataDir = path.join(repo.root, "data");
    expect(config.file).toBe(file);
    expect(config.repoRoot).toBe(repo.root);
    expect(config.dataDir).toBe(dataDir);
    expect(config.sessionsDir).toBe(path.join(dataDir, "sessions"));
    expect(config.dbPath).toBe(path.join(repo.root, "traces/run.db"));
    expect(config.defaults).toEqual({
      codingAgent: "claude_code",
      model: "sonnet",
      thinking: "medium",
      tools: ["read", "bash"],
      timeouts: { idleMs: 60_000, wallMs: 600_000 },
    });
    expect(config.protectedFiles).toEqual([
      ".env",
      ".env.*",
      "adws/adw_sssf_config/**",
      "adws/adw_*.{ts,mts,js,mjs}",
      "adws/adw_modules/**",
      "data/prompt_engineering/**",
    ]);
    expect(config.limits).toEqual({ jsonFixAttempts: 2, retries: 3, maxResultBytes: 16_777_216 });
    expect(config.quality).toEqual({
      test: { name: "test", command: ["npm", "test"], timeoutMs: 600_000, env: {} },
      lint: { name: "lint", command: ["npx", "biome", "check"], timeoutMs: 30_000, env: { CI: "1" } },
    });

    expect(findAgent(config, "planner")).toEqual({
      name: "planner",
      purpose: "Plans the work",
      color: AGENT_COLOR_PALETTE[0],
      model: "sonnet",
      thinking: "medium",
      codingAgent: "claude_code",
      command: undefined,
      systemPromptPath: path.join(dataDir, "prompt_engineering/planner/system.md"),
      userPromptPath: path.join(dataDir, "prompt_engineering/planner/user.md"),
      tools: ["read", "bash"],
      writes: ["**"],
      timeouts: { idleMs: 60_000, wallMs: 600_000 },
      sandbox: { mode: "auto", allowWrite: [], denyRead: [], network: "open" },
      env: {},
    });
    const builder = findAgent(config, "builder");
    expect(builder).toMatchObject({ color: "#123", model: "opus", thinking: "high", writes: ["src/**"] });
    expect(builder?.tools).toEqual([]);
    expect(builder?.timeouts).toEqual({ idleMs: 1500, wallMs: 600_000 });
    expect(builder?.env).toEqual({ FOO: "bar" });
    const tester = findAgent(config, "tester");
    expect(tester).toMatchObject({
      color: AGENT_COLOR_PALETTE[2],
      codingAgent: "exec",
      command: ["node", "agents/tester.mjs"],
      systemPromptPath: path.join(repo.root, "prompts/tester-system.md"),
      userPromptPath: path.join(repo.root, "prompts/tester-user.md"),
    });
  });

  it("wraps palette colours after eight agents", () => {
    const names = Array.from({ length: 10 }, (_, i) => `agent${i}`);
    repo.writeConfig(`agents:\n${names.map((n) => `  - { name: ${n} }`).join("\n")}\n`);
    writePrompts(repo, names);
    const colors = loadConfig({ cwd: repo.root }).agents.map((a) => a.color);
    expect(colors.slice(0, 8)).toEqual([...AGENT_COLOR_PALETTE]);
    expect(colors.slice(8)).toEqual([AGENT_COLOR_PALETTE[0], AGENT_COLOR_PALETTE[1]]);
  });
});

describe("loadConfig with a minimal config", () => {
  it("fills every default from one exec agent and its prompts", () => {
    const file = repo.writeConfig(
      "agents:\n  - name: solo\n    coding_agent: exec\n    command: [node, solo.mjs]\n",
    );
    writePrompts(repo, ["solo"]);
    const dataDir = path.join(repo.root, DEFAULT_DATA_DIR);
    const defaultTimeouts = { idleMs: 300_000, wallMs: 1_800_000 };
    expect(loadConfig({ cwd: repo.root })).toEqual({
      file,
      repoRoot: repo.root,
      defaults: {
        codingAgent: "pi",
        model: "",
        thinking: "off",
        tools: ["read", "bash", "edit", "write"],
        timeouts: defaultTimeouts,
      },
      agents: [
        {
          name: "solo",
          purpose: "",
          color: AGENT_COLOR_PALETTE[0],
          model: "",
          thinking: "off",
          codingAgent: "exec",
          command: ["node", "solo.mjs"],
          systemPromptPath: path.join(dataDir, "prompt_engineering/solo/system.md"),
          userPromptPath: path.join(dataDir, "prompt_engineering/solo/user.md"),
          tools: ["read", "bash", "edit", "write"],
          writes: ["**"],
          timeouts: defaultTimeouts,
          sandbox: { mode: "auto", allowWrite: [], denyRead: [], network: "open" },
          env: {},
        },
      ],
      protectedFiles: [
        ".env",
        ".env.*",
        "adws/adw_sssf_config/**",
        "adws/adw_*.{ts,mts,js,mjs}",
        "adws/adw_modules/**",
        "adws/adw_data/prompt_engineering/**",
      ],
      dataDir,
      sessionsDir: path.join(dataDir, "sessions"),
      dbPath: path.join(dataDir, "sssf.db"),
      tracePostgres: { maxConnections: 4, listenUrl: null },
      limits: { jsonFixAttempts: 2, retries: 1, maxResultBytes: 16_777_216 },
      quality: {},
      engine: { restate: { ingress: null, admin: null, pool: null, runTimeoutMs: 86_400_000 } },
      merge: { strategy: "ff" },
    });
  });

  it("reads thinking: off as the string off, and false as off too", () => {
    repo.writeConfig("defaults:\n  thinking: off\nagents:\n  - name: a\n    thinking: false\n  - name: b\n");
    writePrompts(repo, ["a", "b"]);
    const config = loadConfig({ cwd: repo.root });
    expect(config.defaults.thinking).toBe("off");
    expect(config.agents.map((a) => a.thinking)).toEqual(["off", "off"]);
  });

  it("resolves a relative cwd to an absolute repo root", () => {
    repo.writeConfig("agents:\n  - name: a\n");
    writePrompts(repo, ["a"]);
    const relative = path.relative(process.cwd(), repo.root);
    expect(loadConfig({ cwd: relative }).repoRoot).toBe(repo.root);
  });
});

describe("loadConfig with --config", () => {
  it("resolves a relative configPath against cwd and protects that file by default", () => {
    const file = repo.write("conf/team.yaml", "agents:\n  - name: a\n");
    writePrompts(repo, ["a"]);
    const config = loadConfig({ cwd: repo.root, configPath: "conf/team.yaml" });
    expect(config.file).toBe(file);
    expect(config.protectedFiles).toContain("conf/team.yaml");
    expect(config.agents[0]?.userPromptPath).toBe(
      path.join(repo.root, DEFAULT_DATA_DIR, "prompt_engineering/a/user.md"),
    );
  });

  it("accepts an absolute configPath", () => {
    const file = repo.write("elsewhere/sssf.yaml", "agents:\n  - name: a\n");
    writePrompts(repo, ["a"]);
    expect(loadConfig({ cwd: repo.root, configPath: file }).file).toBe(file);
  });

  it("keeps the default file out of the way when configPath is given", () => {
    repo.writeConfig("not: valid");
    repo.write("ok.yaml", "agents:\n  - name: a\n");
    writePrompts(repo, ["a"]);
    expect(loadConfig({ cwd: repo.root, configPath: "ok.yaml" }).agents).toHaveLength(1);
    expect(DEFAULT_CONFIG_PATH).toBe("adws/adw_sssf_config/sssf.config.yaml");
  });
});

describe("loadConfig with extra runtimes", () => {
  it("accepts a runtime the caller registers", () => {
    repo.writeConfig("defaults: { coding_agent: mine }\nagents:\n  - name: a\n");
    writePrompts(repo, ["a"]);
    const config = loadConfig({ cwd: repo.root, knownRuntimes: ["mine"] });
    expect(config.agents[0]?.codingAgent).toBe("mine");
  });
});

describe("trace.url", () => {
  const withTrace = (url: string) =>
    `agents:\n  - name: planner\n    purpose: Plans\ntrace:\n  url: "${url}"\n`;

  it("a postgres:// URL is the trace, kept as it is (not a path), over observability.db", () => {
    repo.writeConfig(`${withTrace("postgres://sssf@db-host:5432/sssf")}observability:\n  db: x.db\n`);
    writePrompts(repo, ["planner"]);
    const saved = process.env.SSSF_DB;
    delete process.env.SSSF_DB;
    try {
      expect(loadConfig({ cwd: repo.root }).dbPath).toBe("postgres://sssf@db-host:5432/sssf");
    } finally {
      if (saved !== undefined) process.env.SSSF_DB = saved;
    }
  });

  it("anything but a PostgreSQL URL is refused, naming the field", () => {
    repo.writeConfig(withTrace("mysql://db-host/sssf"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow(/trace\.url[\s\S]*postgres:\/\/host\/database/);
  });
});
