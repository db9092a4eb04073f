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
    // Found is not run: the line says so.
    expect(result.stdout).toMatch(/✔ check\s+.*: found, not run \(sssf doctor --run-suites runs it\)\n/);
    expect(result.stdout).toContain("no problems found");
  });

  it("prints each problem once, under its agent or suite, and exits 1", async () => {
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
    const count = (text: string) => result.stdout.split(text).length - 1;
    expect(count("./no-such-agent not found")).toBe(1);
    expect(count("is empty")).toBe(1);
    expect(count("no-such-linter-xyz not found")).toBe(1);
    expect(result.stdout.match(/^ {2}✘ /gm)).toHaveLength(3);
    const broken = result.stdout.slice(result.stdout.indexOf("agent broken"));
    expect(broken).toMatch(/^agent broken \(exec\)\n {2}✘ command\s+\.\/no-such-agent not found/);
    expect(result.stdout).toMatch(/quality suites\n {2}✘ lint\s+no-such-linter-xyz not found/);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("3 problems (✘)");
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
    const assistant = result.stdout.slice(
      result.stdout.indexOf("agent assistant"),
      result.stdout.indexOf("agent helper"),
    );
    expect(assistant).toMatch(/! user\.md Report\s+hand-written ## Report names BuildOutput/);
    expect(result.stdout.slice(result.stdout.indexOf("agent helper"))).not.toContain("user.md Report");
    expect(result.stdout).toContain("no problems found, 1 warning (!)");
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
    expect(result.stdout).toMatch(
      /! tools\s+read, Reed, browse; not sssf tool names, passed to the exec program as written: "Reed" \(did you mean "read"\?\), "browse"\n/,
    );
    expect(result.stdout.match(/Reed/g)).toHaveLength(2);
    expect(result.stdout).toContain("no problems found, 1 warning (!)");
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

  it("--json prints every check with its status and detail", async () => {
    sb.setup(
      [
        { name: "assistant", turns: [] },
        { name: "broken", turns: [], extra: { command: ["./no-such-agent"] } },
      ],
      { quality: { check: { command: [process.execPath, "-e", "0"] } } },
    );
    const result = await sb.run(["doctor", "--json"]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report)).toEqual(["config", "ok", "problems", "warnings", "sections"]);
    expect(report).toMatchObject({ ok: false, problems: 1, warnings: 0 });
    expect(report.config).toBe(path.join(sb.dir, "adws/adw_sssf_config/sssf.config.yaml"));
    expect(report.sections.map((s: { subject: string }) => s.subject)).toEqual([
      "agents.assistant",
      "agents.broken",
      "quality",
    ]);
    const checks = report.sections.flatMap((s: { checks: unknown[] }) => s.checks);
    for (const check of checks) {
      expect(Object.keys(check)).toEqual(["subject", "item", "status", "detail"]);
      expect(["ok", "warning", "problem"]).toContain(check.status);
    }
    expect(checks).toContainEqual({
      subject: "agents.broken",
      item: "command",
      status: "problem",
      detail: `./no-such-agent not found (on PATH or relative to ${sb.dir})`,
    });
    expect(checks).toContainEqual(
      expect.objectContaining({
        subject: "quality",
        item: "check",
        status: "ok",
        detail: expect.stringContaining("found, not run"),
      }),
    );
  });

  it("--json prints a broken config as a JSON error, exit 2", async () => {
    sb.writeConfig({ agents: [] });
    const result = await sb.run(["doctor", "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: "config_invalid", field: "agents" } });
  });

  it("--run-suites runs each suite once: passed, and failed with its exit code and last lines", async () => {
    sb.setup([{ name: "assistant", turns: [] }], {
      quality: {
        test: { command: [process.execPath, "-e", "console.log('all 3 tests pass')"] },
        lint: {
          command: [
            process.execPath,
            "-e",
            "for (let i = 1; i <= 30; i++) console.log('lint line ' + i); process.exit(3)",
          ],
        },
      },
    });
    const result = await sb.run(["doctor", "--run-suites"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✔ test\s+.*: passed \(exit 0\)\n/);
    expect(result.stdout).toMatch(/✘ lint\s+.*: failed \(exit 3\)\n/);
    expect(result.stdout).toContain("      lint line 30\n");
    expect(result.stdout).toContain("      lint line 21\n");
    expect(result.stdout).not.toContain("lint line 20\n");
    expect(result.stdout).not.toContain("not run");
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("1 problem (✘)");

    const json = JSON.parse((await sb.run(["doctor", "--run-suites", "--json"])).stdout);
    const quality = json.sections.find((s: { subject: string }) => s.subject === "quality");
    expect(quality.checks[0]).toMatchObject({
      item: "test",
      status: "ok",
      suite: { passed: true, exit_code: 0, last_lines: ["all 3 tests pass"] },
    });
    expect(quality.checks[1]).toMatchObject({
      item: "lint",
      status: "problem",
      suite: { passed: false, exit_code: 3 },
    });
    expect(quality.checks[1].suite.last_lines).toHaveLength(10);
  });

  it("--run-suites with every suite passing exits 0", async () => {
    sb.setup([{ name: "assistant", turns: [] }], {
      quality: { test: { command: [process.execPath, "-e", "0"] } },
    });
    const result = await sb.run(["doctor", "--run-suites"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✔ test\s+.*: passed \(exit 0\)/);
    expect(result.stdout).toContain("no problems found");
  });

  it("a broken config is exit 2, as everywhere", async () => {
    sb.writeConfig({ agents: [] });
    const result = await sb.run(["doctor"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("agents");
  });
});
