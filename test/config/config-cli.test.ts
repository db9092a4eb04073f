import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** `sssf run prompt go` in the sandbox; asserts exit 2 before any session, and returns stderr. */
async function configRefused(): Promise<string> {
  const result = await sb.run(["run", "prompt", "go"]);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(path.join(sb.dir, "adws/adw_data/sessions"))).toBe(false);
  return result.stderr;
}

describe("the CLI refuses a config that would not mean what it says", () => {
  it("names an unknown tool's field, its value, the valid names and a suggestion", async () => {
    sb.setup([
      { name: "planner", turns: [] },
      { name: "builder", turns: [], extra: { coding_agent: "pi", tools: ["read", "Reed", "wirte"] } },
    ]);
    const stderr = await configRefused();
    expect(stderr).toContain("sssf.config.yaml (2 problems)");
    expect(stderr).toContain('agents[1].tools[1]: unknown tool "Reed" (did you mean "read"?)');
    expect(stderr).toContain('agents[1].tools[2]: unknown tool "wirte" (did you mean "write"?)');
    expect(stderr).toContain("the tools are read, bash, edit, write, grep, find, ls");
  });

  it("names an absolute pattern with its fix, next to an unknown default tool", async () => {
    sb.setup([{ name: "planner", turns: [], extra: { writes: ["specs/", "/"] } }], {
      defaults: { coding_agent: "pi", tools: ["Glob"] },
    });
    const stderr = await configRefused();
    expect(stderr).toContain('defaults.tools[0]: unknown tool "Glob" (did you mean "find"?)');
    expect(stderr).toContain(
      'agents[0].writes[1]: absolute pattern "/": patterns are relative to the repo root; write "**" for the whole repo',
    );
    expect(stderr).not.toContain("writes[0]");
  });
});
