import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

function prompts(name: string) {
  const dir = path.join(sb.dir, "adws/adw_data/prompt_engineering", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "system.md"), "system");
  writeFileSync(path.join(dir, "user.md"), "{{prompt}}");
}

async function expectConfigError(config: unknown, ...expected: (string | RegExp)[]) {
  sb.writeConfig(config);
  const result = await sb.run(["run", "prompt", "go"]);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  for (const part of expected) {
    if (typeof part === "string") expect(result.stderr).toContain(part);
    else expect(result.stderr).toMatch(part);
  }
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(path.join(sb.dir, "adws/adw_data/sessions"))).toBe(false);
  expect(existsSync(path.join(sb.dir, "adws/adw_data/sssf.db"))).toBe(false);
  return result.stderr;
}

const agent = (fields: Record<string, unknown> = {}) => ({
  name: "a",
  coding_agent: "exec",
  command: ["node", "x.mjs"],
  ...fields,
});

describe("config errors stop everything with exit code 2", () => {
  it("a missing config file names the path and the fix", async () => {
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("adws/adw_sssf_config/sssf.config.yaml");
    expect(result.stderr).toContain("sssf init");
  });

  it("an explicit --config that does not exist", async () => {
    const result = await sb.run(["run", "prompt", "go", "--config", "nope.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nope.yaml");
  });

  it("unknown keys, with a suggestion", async () => {
    prompts("a");
    await expectConfigError(
      { agents: [agent({ colour: "#fff" })], extra_section: 1 },
      "agents[0].colour",
      '"color"',
      "extra_section",
    );
  });

  it("wrong types", async () => {
    prompts("a");
    await expectConfigError(
      { agents: [agent({ writes: "src/**" })], limits: { json_fix_attempts: "two" } },
      "agents[0].writes",
      "limits.json_fix_attempts",
    );
  });

  it("missing prompt files", async () => {
    await expectConfigError(
      { agents: [agent()] },
      "agents[0].prompt_engineering.system",
      "agents[0].prompt_engineering.user",
      "not found",
    );
  });

  it("duplicate agent names", async () => {
    prompts("a");
    await expectConfigError({ agents: [agent(), agent()] }, 'agents[1].name: duplicate agent name "a"');
  });

  it("an exec agent without a command, and an unknown coding agent", async () => {
    prompts("a");
    prompts("b");
    await expectConfigError(
      {
        agents: [
          { name: "a", coding_agent: "exec" },
          { name: "b", coding_agent: "gpt-cli" },
        ],
      },
      "agents[0].command",
      "agents[1].coding_agent",
    );
  });

  it("YAML syntax errors give the line", async () => {
    await expectConfigError("agents:\n  - name: a\n   bad: [\n", /line \d+/);
  });

  it("every problem at once", async () => {
    prompts("a");
    const stderr = await expectConfigError(
      {
        defaults: { thinking: "max" },
        agents: [agent({ colour: "red" }), agent({ tools: "all" })],
        bogus: true,
      },
      "defaults.thinking",
      "agents[0].colour",
      "agents[1].tools",
      "bogus",
    );
    expect(stderr).toMatch(/\d+ problems/);
  });

  it("a schema error, a missing prompt and a duplicate agent in one run", async () => {
    prompts("a");
    const stderr = await expectConfigError(
      { agents: [agent({ color: "blue" }), agent({ name: "nobody" }), agent()] },
      "(4 problems)",
      "agents[0].color: expected a colour",
      "agents[1].prompt_engineering.system: file not found:",
      "agents[1].prompt_engineering.user: file not found:",
      'agents[2].name: duplicate agent name "a" (also agents[0]); rename one of them',
    );
    expect(stderr).toContain(path.join(sb.dir, "adws/adw_sssf_config/sssf.config.yaml"));
  });

  it("everything a run needs and lacks, together: agents and quality suites", async () => {
    prompts("a");
    sb.writeConfig({ agents: [agent()] });
    const result = await sb.run(["run", "build-test", "go"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the run cannot start (2 problems)");
    expect(result.stderr).toContain('workflow build-test: no agent named "builder"');
    expect(result.stderr).toContain('workflow build-test needs the quality suite "test"');
    const json = await sb.run(["run", "build-test", "go", "--json"]);
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout);
    expect(body.error.problems).toHaveLength(2);
    expect(body.error.field).toBe("--agent");
  });
});
