import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import {
  approve,
  buggyBuild,
  fixTurn,
  git,
  goodBuild,
  plannerTurns,
  reply,
  WorkflowWorld,
} from "./workflow-world.js";

let world: WorkflowWorld | undefined;

/** A fix that changes the code but still does not add. */
const wrongFix = (expression: string) => ({
  match: "suite fails",
  tool_calls: [
    {
      tool: "write",
      write_file: { path: "src/app.js", content: `export const add = (a, b) => ${expression};\n` },
    },
  ],
  reply: reply({ summary: `tried ${expression}`, changed_files: ["src/app.js"] }),
});
afterEach(() => world?.cleanup());

// Nothing to lint before the build (src/app.js is missing): clean at the base commit.
const LINT_OK = `import { existsSync, readFileSync } from "node:fs";
if (existsSync("src/app.js") && readFileSync("src/app.js", "utf8").includes("export const")) { console.log("lint: prefer function declarations"); process.exit(1); }
console.log("lint clean");
`;

describe("test and quality loops", () => {
  it("build-test: a suite that never passes ends after two fixes, each re-tested, with no commit", async () => {
    world = new WorkflowWorld({
      agents: [
        {
          name: "builder",
          turns: [wrongFix("a * b"), wrongFix("b - a"), buggyBuild],
        },
      ],
    });
    const result = await world.run(["run", "build-test", "add an add function"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stdout).toContain("tests still fail after 2 fix(es)");
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "build:success",
      "test:fail",
      "fix:success",
      "test:fail",
      "fix:success",
      "test:fail",
    ]);
    expect(world.commits(adwId)).toEqual([]);
    const [session] = world.sb.query<{ status: string; accepted: number }>(
      "SELECT status, accepted FROM sessions WHERE adw_id = ?",
      adwId,
    );
    expect(session).toEqual({ status: "fail", accepted: 0 });
  });

  it("plan-build-test: plan, build, fix once, then one commit holding the plan and the code", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "planner", turns: plannerTurns },
        { name: "builder", turns: [fixTurn, buggyBuild] },
      ],
    });
    const result = await world.run(["run", "plan-build-test", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "plan:success",
      "build:success",
      "test:fail",
      "fix:success",
      "test:success",
      "commit:success",
    ]);
    // The build's message is the subject; the fix's is kept in the body, not dropped.
    expect(world.commits(adwId)).toEqual(["Add the add function"]);
    expect(world.commitBody(adwId, 0)).toBe("- Fix add");
    expect(world.commitFiles(adwId, 0)).toEqual(["specs/add.md", "src/app.js"]);
    // The builder's build prompt carried the plan envelope.
    expect(world.sb.agent("builder").sends()[0]?.prompt).toContain(
      '"commit_message": "Plan the add function"',
    );
  });

  it("plan-build-test-quality: a lint failure is fixed and then every suite, tests included, runs again", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "planner", turns: plannerTurns },
        {
          name: "builder",
          turns: [
            {
              match: "lint suite fails",
              tool_calls: goodBuild.tool_calls ?? [],
              reply: reply({ summary: "function declaration", changed_files: ["src/app.js"] }),
            },
            {
              tool_calls: [
                {
                  tool: "write",
                  write_file: {
                    path: "src/app.js",
                    content: "export const add = (a, b) => {\n  return a + b;\n};\n",
                  },
                },
              ],
              reply: reply({
                summary: "added add",
                changed_files: ["src/app.js"],
                commit_message: "Add add",
              }),
            },
          ],
        },
      ],
      quality: {
        test: { command: ["node", "check.mjs"] },
        lint: { command: ["node", "lint.mjs"] },
      },
    });
    writeFileSync(path.join(world.sb.dir, "lint.mjs"), LINT_OK);
    git(world.sb.dir, ["add", "lint.mjs"]);
    git(world.sb.dir, ["commit", "-q", "-m", "lint"]);
    world.base = git(world.sb.dir, ["rev-parse", "HEAD"]).trim();
    const result = await world.run(["run", "plan-build-test-quality", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "plan:success",
      "build:success",
      "test:success",
      "test:success",
      "lint:fail",
      "fix:success",
      "test:success",
      "lint:success",
      "commit:success",
    ]);
    expect(world.commits(adwId)).toEqual(["Add add"]);
  });

  it("quality: runs every configured suite; nothing fails, so nothing is committed", async () => {
    world = new WorkflowWorld({
      agents: [{ name: "builder", turns: [] }],
      quality: { test: { command: ["node", "-e", "console.log('fine')"] } },
    });
    const result = await world.run(["run", "quality", "check everything"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual(["request:success", "test:success"]);
    expect(world.commits(adwId)).toEqual([]);
    expect(world.sb.agent("builder").sends()).toEqual([]);
  });

  it("quality: two fixes, one commit whose message keeps both fixes' commit_message", async () => {
    const firstTry = wrongFix("a * b");
    world = new WorkflowWorld({
      agents: [
        {
          name: "builder",
          turns: [
            {
              ...firstTry,
              reply: reply({
                summary: "tried a * b",
                changed_files: ["src/app.js"],
                commit_message: "Try multiplying",
              }),
            },
            fixTurn,
          ],
        },
      ],
    });
    const result = await world.run(["run", "quality", "make the tests pass"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "test:fail",
      "fix:success",
      "test:fail",
      "fix:success",
      "test:success",
      "commit:success",
    ]);
    // Before, only the last fix's message was used: "Try multiplying" was dropped.
    expect(world.commits(adwId)).toEqual(["Try multiplying"]);
    expect(world.commitBody(adwId, 0)).toBe("- Fix add");
  });

  it("a workflow needing a suite the config lacks is a config error before anything runs", async () => {
    world = new WorkflowWorld({ agents: [{ name: "builder", turns: [goodBuild] }], quality: {} });
    const result = await world.run(["run", "build-test", "add an add function"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('workflow build-test needs the quality suite "test"');
    expect(result.stderr).toContain("sssf.config.yaml");
    expect(existsSync(path.join(world.sb.dir, "adws/adw_data/sessions"))).toBe(false);
    expect(world.sb.agent("builder").sends()).toEqual([]);

    const quality = await world.run(["run", "quality", "check"]);
    expect(quality.code).toBe(2);
    expect(quality.stderr).toContain("needs at least one quality suite");
  });
});

describe("single-agent and review workflows", () => {
  it("scout: read-only findings, no commit", async () => {
    world = new WorkflowWorld({
      agents: [
        {
          name: "scout",
          turns: [
            {
              reply: reply({
                summary: "found the entry point",
                findings: [{ file: "check.mjs", note: "the test" }],
              }),
            },
          ],
        },
      ],
    });
    const result = await world.run(["run", "scout", "where is the test?"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual(["request:success", "scout:success"]);
    expect(world.commits(adwId)).toEqual([]);
  });

  it("plan: the plan file is committed with the planner's message", async () => {
    world = new WorkflowWorld({ agents: [{ name: "planner", turns: plannerTurns }] });
    const result = await world.run(["run", "plan", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual(["request:success", "plan:success", "commit:success"]);
    expect(world.commits(adwId)).toEqual(["Plan the add function"]);
    expect(world.commitFiles(adwId, 0)).toEqual(["specs/add.md"]);
  });

  it("build: without a commit_message the commit falls back to sssf(<adw_id>): <summary>", async () => {
    world = new WorkflowWorld({
      agents: [
        {
          name: "builder",
          turns: [{ ...goodBuild, reply: reply({ summary: "added add", changed_files: ["src/app.js"] }) }],
        },
      ],
    });
    const result = await world.run(["run", "build", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.commits(adwId)).toEqual([`sssf(${adwId}): added add`]);
  });

  it("build: a builder whose changed_files lie is corrected in the same session, then fails the phase", async () => {
    world = new WorkflowWorld({
      agents: [
        {
          name: "builder",
          turns: [
            { ...goodBuild, reply: reply({ summary: "added add", changed_files: ["src/other.js"] }) },
            { reply: reply({ summary: "still wrong", changed_files: ["src/other.js"] }) },
          ],
        },
      ],
    });
    const result = await world.run(["run", "build", "add an add function"]);
    expect(result.code).toBe(1);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual(["request:success", "build:fail"]);
    expect(world.commits(adwId)).toEqual([]);
    const gates = world.sb.query<{ gate: string; ok: number }>(
      "SELECT gate, ok FROM gate_results WHERE adw_id = ? ORDER BY created_at",
      adwId,
    );
    expect(gates.map((g) => `${g.gate}:${g.ok}`)).toEqual(["diffMatchesClaims:0", "diffMatchesClaims:0"]);
  });

  it("plan-build: one commit with the builder's message", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "planner", turns: plannerTurns },
        { name: "builder", turns: [goodBuild] },
      ],
    });
    const result = await world.run(["run", "plan-build", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "plan:success",
      "build:success",
      "commit:success",
    ]);
    expect(world.commits(adwId)).toEqual(["Add the add function"]);
  });

  it("build-review: rejected beyond the revision bound is not accepted and commits nothing", async () => {
    const reject = {
      repeat: true,
      reply: reply({ summary: "no", approved: false, findings: [], blocking: ["rename add to sum"] }),
    };
    const revise = {
      match: "did not approve",
      repeat: true,
      reply: reply({ summary: "tried", changed_files: [] }),
    };
    world = new WorkflowWorld({
      agents: [
        { name: "builder", turns: [revise, goodBuild] },
        { name: "reviewer", turns: [reject] },
      ],
    });
    const result = await world.run(["run", "build-review", "add an add function"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("not approved: rename add to sum");
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "build:success",
      "changes:success",
      "review:success",
      "revise:success",
      "changes:success",
      "review:success",
      "revise:success",
      "changes:success",
      "review:success",
    ]);
    expect(world.commits(adwId)).toEqual([]);
  });

  it("build-review: approved on the first review commits the build", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "builder", turns: [goodBuild] },
        { name: "reviewer", turns: [approve] },
      ],
    });
    const result = await world.run(["run", "build-review", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.commits(adwId)).toEqual(["Add the add function"]);
  });

  it("document: the write-up is committed with the documenter's message", async () => {
    world = new WorkflowWorld({
      agents: [
        {
          name: "documenter",
          turns: [
            {
              tool_calls: [{ tool: "write", write_file: { path: "docs/usage.md", content: "# Usage\n" } }],
              reply: reply({
                summary: "wrote usage",
                document_path: "docs/usage.md",
                artifacts: ["docs/usage.md"],
                commit_message: "Document usage",
              }),
            },
          ],
        },
      ],
    });
    const result = await world.run(["run", "document", "document usage"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.commits(adwId)).toEqual(["Document usage"]);
    const ref = world.ref(adwId);
    expect(git(world.sb.dir, ["show", `${ref}:docs/usage.md`])).toBe("# Usage\n");
    expect(readFileSync(path.join(world.sb.dir, "README.md"), "utf8")).toBe("# sandbox\n");
  });
});
