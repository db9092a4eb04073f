import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENERATED_REPORT_MARK } from "../../src/envelope/report-placement.js";
import { defaultPrompts } from "../../src/workflows/prompts/default-prompts.js";
import { Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("sssf doctor", () => {
  it("passes when every agent's program, prompts and quality suites are there", async () => {
    sb.setup([{ name: "assistant", turns: [] }], {
      quality: { check: { command: [process.execPath, "-e", "0"] } },
    });
    const result = await sb.run(["doctor"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("agent assistant (exec)");
    expect(result.stdout).toMatch(/✔ command\s+\/.*node/);
    expect(result.stdout).toMatch(/✔ system\.md/);
    expect(result.stdout).toContain("no problems found");
  });

  it("lists one line per problem and exits 1", async () => {
    sb.setup(
      [
        { name: "assistant", turns: [] },
        { name: "broken", turns: [], extra: { command: ["./no-such-agent"] } },
      ],
      { quality: { lint: { command: ["no-such-linter-xyz", "."] } } },
    );
    writeFileSync(path.join(sb.dir, "adws/adw_data/prompt_engineering/assistant/user.md"), "");
    const result = await sb.run(["doctor"]);
    expect(result.code).toBe(1);
    const problems = result.stdout.slice(result.stdout.indexOf("problems:"));
    expect(problems).toContain("agents.broken: command: ./no-such-agent not found");
    expect(problems).toContain("agents.assistant: user.md:");
    expect(problems).toContain("is empty");
    expect(problems).toContain("quality: lint: no-such-linter-xyz not found");
    expect(problems.trim().split("\n")).toHaveLength(4);
  });

  it("warns, without failing, about a hand-written Report that names an output type", async () => {
    sb.setup([
      { name: "assistant", turns: [] },
      { name: "helper", turns: [] },
    ]);
    const prompts = path.join(sb.dir, "adws/adw_data/prompt_engineering");
    writeFileSync(
      path.join(prompts, "assistant/user.md"),
      "# Task\n\n{{prompt}}\n\n## Report\n\nRespond with ONLY valid JSON matching `BuildOutput`.\n",
    );
    writeFileSync(
      path.join(prompts, "helper/user.md"),
      `# Task\n\n{{prompt}}\n\n${defaultPrompts("builder").user.slice(defaultPrompts("builder").user.indexOf(GENERATED_REPORT_MARK))}`,
    );
    const result = await sb.run(["doctor"]);
    expect(result.code).toBe(0);
    const warnings = result.stdout.slice(result.stdout.indexOf("warning:"));
    expect(warnings).toContain("agents.assistant: user.md Report: hand-written ## Report names BuildOutput");
    expect(warnings).not.toContain("agents.helper");
    expect(result.stdout).toContain("no problems found");
  });

  it("shows each agent's tools, and warns about exec tools that are not sssf's", async () => {
    sb.setup([
      { name: "assistant", turns: [] },
      { name: "custom", turns: [], extra: { tools: ["read", "Reed", "browse"] } },
      { name: "silent", turns: [], extra: { tools: [] } },
    ]);
    const result = await sb.run(["doctor"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✔ tools\s+read, bash, edit, write\n/);
    expect(result.stdout).toMatch(/✔ tools\s+none \(tools: \[\]\)\n/);
    const warnings = result.stdout.slice(result.stdout.indexOf("warning:"));
    expect(warnings).toContain(
      'agents.custom: tools: read, Reed, browse; not sssf tool names, passed to the exec program as written: "Reed" (did you mean "read"?), "browse"',
    );
    expect(warnings).not.toContain("agents.assistant");
  });

  it("refuses an unknown tool of another runtime as a config error, naming the field and a suggestion", async () => {
    sb.setup([
      { name: "assistant", turns: [] },
      { name: "builder", turns: [], extra: { coding_agent: "pi", tools: ["read", "Reed"] } },
    ]);
    const result = await sb.run(["doctor"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('agents[1].tools[1]: unknown tool "Reed" (did you mean "read"?)');
    expect(result.stderr).toContain("the tools are read, bash, edit, write, grep, find, ls");
  });

  it("a broken config is exit 2, as everywhere", async () => {
    sb.writeConfig({ agents: [] });
    const result = await sb.run(["doctor"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("agents");
  });
});
