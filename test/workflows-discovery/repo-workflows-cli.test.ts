import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, repoRoot, Sandbox } from "../helpers/sandbox.js";

// Every test runs the built CLI (`npm run build` first) in a scratch repo under the OS temp dir: no
// node_modules, no package.json, so `import … from "sssf"` resolves only through sssf's own hook.

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
  expect(path.relative(repoRoot, sb.dir).startsWith("..")).toBe(true);
});
afterEach(() => sb.cleanup());

function write(relative: string, content: string): void {
  const file = path.join(sb.dir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** TypeScript with types, a helper imported by its `.js` name, and both public entry points. */
const DOCS_SITE = `import { defineWorkflow, GenericOutput, type Run } from "sssf";
import { FAKE_NO_PROXY } from "sssf/testing";
import { label } from "./lib/label.js";

const phases: readonly string[] = ["request", "write"];
export default defineWorkflow({
  name: "docs_site",
  description: label("Build the docs site") + (typeof FAKE_NO_PROXY === "string" ? "" : "!"),
  agents: ["writer"],
  suites: ["docs"],
  phases,
  async run(run: Run, request: string) {
    const out = await run.agent("write", { owner: "writer", description: "Write" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request, previous: null }));
    return run.finish({ accepted: true, reason: out.summary });
  },
});
`;
const LABEL = `import { gates } from "sssf";
export function label(text: string): string {
  return \`\${text} (\${typeof gates.artifactsExist})\`;
}
`;
const JS_FLOW = `import { defineWorkflow } from "sssf";
export const workflow = defineWorkflow({
  name: "js-flow", description: "Plain JavaScript", agents: [], suites: ["*"],
  async run(run) { return run.finish({ accepted: true, reason: "js ran" }); },
});
`;
const PLAN_OVERRIDE = `import { defineWorkflow } from "sssf";
export default defineWorkflow({
  name: "plan", description: "The repo's own plan", agents: [],
  async run(run, request) {
    await run.engineer("request", { description: "Capture" }, (phase) => phase.log("got it", { request }));
    return run.finish({ accepted: true, reason: "the repo's plan ran" });
  },
});
`;

describe("repo-local workflows through the built CLI", () => {
  it("sssf list --json shows built-ins and repo-local files, overrides, errors with file:line, and config gaps", async () => {
    sb.setup([{ name: "writer", turns: [] }]);
    write("adws/adw_docs_site.ts", DOCS_SITE);
    write("adws/lib/label.ts", LABEL);
    write("adws/adw_js_flow.js", JS_FLOW);
    write("adws/adw_plan.ts", PLAN_OVERRIDE);
    write("adws/adw_no_run.ts", 'export default { name: "no-run", description: "x", agents: [] };\n');
    write("adws/adw_broken.ts", 'import { defineWorkflow } from "sssf";\n\nconst x: number = ;\n');
    write("adws/adw_broken_js.mjs", "const a = 1;\nconst b = 2;\nconst c = ;\n");
    write("adws/adw_throws.ts", 'const n: number = 1;\nthrow new Error("boom " + n);\n');

    const result = await sb.run(["list", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(2);
    const listing = JSON.parse(result.stdout);
    expect(listing.config).toEqual({
      file: path.join(sb.dir, "adws/adw_sssf_config/sssf.config.yaml"),
      loaded: true,
      error: null,
    });
    const byName = new Map(listing.workflows.map((w: { name: string }) => [w.name, w]));
    expect(byName.get("docs-site")).toEqual({
      name: "docs-site",
      description: "Build the docs site (object)",
      source: "repo",
      file: "adws/adw_docs_site.ts",
      overrides_builtin: false,
      phases: ["request", "write"],
      agents: ["writer"],
      suites: ["docs"],
      missing_agents: [],
      missing_suites: ["docs"],
      error: null,
    });
    expect(byName.get("js-flow")).toMatchObject({ source: "repo", suites: ["*"], missing_suites: ["*"] });
    const names = listing.workflows.map((w: { name: string }) => w.name);
    // The override keeps the built-in's place; the others follow by name.
    expect(names.slice(0, 4)).toEqual(["prompt", "scout", "plan", "build"]);
    expect(names.slice(-6)).toEqual(["broken", "broken-js", "docs-site", "js-flow", "no-run", "throws"]);
    expect(byName.get("plan")).toMatchObject({
      source: "repo",
      file: "adws/adw_plan.ts",
      overrides_builtin: true,
      description: "The repo's own plan",
    });
    expect(byName.get("build")).toMatchObject({
      source: "built-in",
      file: null,
      missing_agents: ["builder"],
    });
    expect(byName.get("no-run")).toMatchObject({
      error: "default export.run: expected a function run(run, request), got undefined",
    });
    expect((byName.get("broken") as { error: string }).error).toMatch(
      /^adws\/adw_broken\.ts:3:19: syntax error: /,
    );
    expect((byName.get("broken-js") as { error: string }).error).toMatch(
      /^adws\/adw_broken_js\.mjs:3: syntax error: Unexpected token/,
    );
    expect((byName.get("throws") as { error: string }).error).toMatch(
      /^adws\/adw_throws\.ts:2(:\d+)?: boom 1$/,
    );
  });

  it("sssf list prints one block per workflow and marks what the config lacks", async () => {
    sb.setup([{ name: "writer", turns: [] }]);
    write("adws/adw_docs_site.ts", DOCS_SITE);
    write("adws/lib/label.ts", LABEL);
    write("adws/adw_plan.ts", PLAN_OVERRIDE);
    const result = await sb.run(["list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("config: adws/adw_sssf_config/sssf.config.yaml\n");
    expect(result.stdout).toContain(
      [
        "docs-site  adws/adw_docs_site.ts",
        "  Build the docs site (object)",
        "  phases: request → write",
        "  agents: writer",
        "  suites: docs (not in config)",
      ].join("\n"),
    );
    expect(result.stdout).toContain(
      "plan  adws/adw_plan.ts (overrides the built-in)\n  The repo's own plan\n",
    );
    expect(result.stdout).toContain("build-test  built-in\n");
    expect(result.stdout).toContain("  agents: builder (not in config)\n  suites: test (not in config)\n");
  });

  it("without a config, sssf list still lists and says agents and suites are not checked", async () => {
    const result = await sb.run(["list", "--json"]);
    expect(result.code).toBe(0);
    const listing = JSON.parse(result.stdout);
    expect(listing.config.loaded).toBe(false);
    expect(listing.config.error).toContain("config file not found");
    expect(listing.workflows[0]).toMatchObject({
      name: "prompt",
      missing_agents: null,
      missing_suites: null,
    });
    const text = await sb.run(["list"]);
    expect(text.stdout.split("\n")[0]).toMatch(
      /^config: not loaded, agents and suites not checked \(.*not found/,
    );
  });

  it("sssf run <local-name> runs a TypeScript workflow end to end, by either spelling", async () => {
    const greet = `import { defineWorkflow, GenericOutput, PhaseFailedError, type Run } from "sssf";

const greet = (run: Run, request: string) =>
  run.agent("greet", { owner: "greeter", description: "Greet" }, (phase) =>
    phase.call({ outputType: GenericOutput, prompt: request, previous: null }));

export default defineWorkflow({
  name: "say_hello",
  description: "Greets, retrying once after a greeter that gives up",
  agents: ["greeter"],
  async run(run, request) {
    await run.engineer("request", { description: "Capture" }, (phase) => phase.log("got", { request }));
    try {
      await greet(run, request);
    } catch (error) {
      // The engine's own error class: one copy of sssf is shared with the workflow.
      if (!(error instanceof PhaseFailedError)) throw error;
      const second = await greet(run, request);
      return run.finish({ accepted: true, reason: "recovered: " + second.summary });
    }
    return run.finish({ accepted: false, reason: "the first greeting should have failed" });
  },
});
`;
    sb.setup([
      {
        name: "greeter",
        turns: [
          { reply: JSON.stringify({ status: "fail", summary: "cannot greet yet" }) },
          { reply: envelopeJson({ summary: "said hello" }) },
          { reply: JSON.stringify({ status: "fail", summary: "cannot greet yet" }) },
          { reply: envelopeJson({ summary: "said hello again" }) },
        ],
      },
    ]);
    write("adws/adw_say_hello.ts", greet);
    const result = await sb.run(["run", "say_hello", "greet the team"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ACCEPTED");
    const adwId = adwIdFrom(result.stdout);
    expect(sb.query("SELECT workflow, status, reason FROM sessions WHERE adw_id = ?", adwId)).toEqual([
      { workflow: "say-hello", status: "success", reason: "recovered: said hello" },
    ]);
    expect(
      sb.query("SELECT number, name, kind, status FROM phases WHERE adw_id = ? ORDER BY number", adwId),
    ).toEqual([
      { number: 1, name: "request", kind: "engineer", status: "success" },
      { number: 2, name: "greet", kind: "agent", status: "fail" },
      { number: 3, name: "greet", kind: "agent", status: "success" },
    ]);

    const dashed = await sb.run(["run", "say-hello", "again"]);
    expect(dashed.code).toBe(0);
    expect(
      sb.query("SELECT workflow, reason FROM sessions WHERE adw_id = ?", adwIdFrom(dashed.stdout)),
    ).toEqual([{ workflow: "say-hello", reason: "recovered: said hello again" }]);
  });

  it("a repo-local workflow overrides the built-in of the same name", async () => {
    sb.setup([{ name: "planner", turns: [] }]);
    write("adws/adw_plan.ts", PLAN_OVERRIDE);
    const result = await sb.run(["run", "plan", "anything"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("the repo's plan ran");
  });

  it("sssf run prompt never loads repo-local files it does not need", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: envelopeJson({ summary: "hi" }) }] }]);
    write("adws/adw_broken.ts", "this does not compile at all (\n");
    write(
      "adws/adw_side_effect.ts",
      'import { writeFileSync } from "node:fs";\nwriteFileSync("loaded.txt", "x");\n',
    );
    const result = await sb.run(["run", "prompt", "say hi"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(existsSync(path.join(sb.dir, "loaded.txt"))).toBe(false);
  });

  it("a broken workflow file is a config error naming file:line, with no stack trace", async () => {
    sb.setup([{ name: "assistant", turns: [] }]);
    write(
      "adws/adw_broken.ts",
      'import { defineWorkflow } from "sssf";\nexport default defineWorkflow({\n  name: ,\n});\n',
    );
    const result = await sb.run(["run", "broken", "go"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /^sssf: invalid workflow file .*adws\/adw_broken\.ts:\n {2}adws\/adw_broken\.ts:3:9: syntax error: /,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);

    write("adws/adw_wrong.ts", 'export default { name: "right", description: "d", agents: [], run() {} };\n');
    const wrong = await sb.run(["run", "wrong", "go"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      'default export.name: "right" does not match the file name: name it "wrong" or rename the file',
    );

    const unknown = await sb.run(["run", "nope", "go"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /unknown workflow "nope" \(available: prompt, .*, broken, wrong; or write adws\/adw_nope\.ts\)/,
    );
  });

  it("a repo whose package.json says commonjs still loads adws/ files as ES modules", async () => {
    write("package.json", JSON.stringify({ name: "legacy", type: "commonjs" }));
    write("adws/adw_js_flow.js", JS_FLOW);
    write("adws/adw_docs_site.ts", DOCS_SITE);
    write("adws/lib/label.ts", LABEL);
    const result = await sb.run(["list", "--json"]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout).workflows;
    expect(rows.filter((w: { error: unknown }) => w.error !== null)).toEqual([]);
    expect(rows.map((w: { name: string }) => w.name)).toContain("js-flow");
  });
});
