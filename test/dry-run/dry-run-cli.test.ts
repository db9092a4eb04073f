/**
 * `sssf run … --dry-run` through the built CLI (`npm run build` first): every built-in workflow is
 * walked with nothing started and nothing written, a repo's own workflow with parallel branches and a
 * branch on an envelope field, the `--json` shape, and an output type no example can be made for.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_WORKFLOW_CATALOG } from "../../src/workflows/builtin-catalog.js";
import { builtinWorkflows } from "../../src/workflows/index.js";
import { collect, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
/** Every program a dry run could start (git, the agent CLIs, npm, a shell) is a shim here that logs. */
let shims: string;
let started: string;

function write(relative: string, content: string): void {
  const file = path.join(sb.dir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** Every path under the repo (`.git` included) with its size and mtime: what any write would change. */
function snapshot(dir = sb.dir, into = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const stat = statSync(full);
    into.set(path.relative(sb.dir, full), entry.isDirectory() ? "dir" : `${stat.size}@${stat.mtimeMs}`);
    if (entry.isDirectory()) snapshot(full, into);
  }
  return into;
}

/** `sssf run <args> --dry-run` with only the shims on PATH. */
const dryRun = (args: string[]) => collect(sb.start(["run", ...args, "--dry-run"], { PATH: shims }));

function startedPrograms(): string {
  try {
    return readFileSync(started, "utf8");
  } catch {
    return "";
  }
}

interface JsonPhase {
  number: number;
  name: string;
  kind: string;
  owner: string;
  coding_agent: string | null;
  branch: string | null;
  calls: { output_type: string; format: string; gates: string[]; envelope: Record<string, unknown> }[];
  actions: { action: string; suite?: string; command?: string[] }[];
}

beforeAll(async () => {
  sb = new Sandbox();
  write("package.json", JSON.stringify({ name: "app", scripts: { test: "node -e 0", lint: "node -e 0" } }));
  expect((await sb.run(["init", "--sdd"])).code).toBe(0);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: sb.dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  shims = path.join(sb.agentsDir, "shims");
  started = path.join(sb.agentsDir, "started.log");
  mkdirSync(shims, { recursive: true });
  for (const program of ["git", "pi", "claude", "codex", "gemini", "opencode", "npm", "npx", "sh", "bash"]) {
    const shim = path.join(shims, program);
    writeFileSync(shim, `#!/bin/sh\necho "${program} $*" >> '${started}'\nexit 1\n`);
    chmodSync(shim, 0o755);
  }
});
afterAll(() => sb.cleanup());

describe("sssf run --dry-run of every built-in workflow", () => {
  it("lists the catalog's workflows, all of them walkable", () => {
    expect(BUILTIN_WORKFLOW_CATALOG.map((entry) => entry.name)).toEqual([...builtinWorkflows.keys()]);
  });

  for (const { name } of BUILTIN_WORKFLOW_CATALOG) {
    it(`${name}: exit 0, the workflow's phases, nothing started, nothing written`, async () => {
      const before = snapshot();
      const result = await dryRun([name, "Add a greet function", "--json"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(startedPrograms()).toBe("");
      // No session folder, no trace database, no worktree, no git object or branch.
      expect(snapshot()).toEqual(before);

      const report = JSON.parse(result.stdout) as {
        workflow: string;
        phases: JsonPhase[];
        not_walked: string[];
        accepted: boolean;
      };
      expect(report.workflow).toBe(name);
      expect(report.accepted).toBe(true);
      const declared = new Set(
        (builtinWorkflows.get(name)?.phases ?? []).flatMap((phase) => phase.split(" ∥ ")),
      );
      const walked = report.phases.map((phase) => phase.name);
      expect(walked[0]).toBe("request");
      expect(report.phases.map((phase) => phase.number)).toEqual(walked.map((_, i) => i + 1));
      // Every phase walked is one the workflow declares; every declared one is walked or said not to be.
      const placeholder = (phase: string) => phase.includes("<");
      for (const phase of walked) expect(declared.has(phase) || [...declared].some(placeholder)).toBe(true);
      for (const phase of declared)
        if (!placeholder(phase))
          expect(walked.includes(phase) || report.not_walked.includes(phase)).toBe(true);
      for (const phase of report.phases.filter((p) => p.kind === "agent")) {
        expect(phase.coding_agent).toBe("pi");
        expect(phase.calls.length).toBeGreaterThan(0);
        for (const call of phase.calls) expect(call.envelope.status).toBe("success");
      }
    });
  }

  it("build-test --best-of 3: the build phase says it runs as 3 attempts; a bad count is refused", async () => {
    const result = await dryRun(["build-test", "Add a greet function", "--best-of", "3"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "02 build (agent builder · pi) Implement the request (best of 3, best of all)\n",
    );
    const bad = await dryRun(["build-test", "Add a greet function", "--best-of", "three"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--best-of: expected a whole number of attempts, got "three"');
  });

  it("build-test: the fix loop ends after one round, and the text says so", async () => {
    const result = await dryRun(["build-test", "Add a greet function"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.filter((line) => /^\d\d /.test(line))).toEqual([
      "01 request (engineer) Capture the engineer's request",
      "02 build (agent builder · pi) Implement the request",
      "03 test (code quality) Run the test suite",
      "04 commit (code git) Commit the run's own changes",
    ]);
    expect(result.stdout).toContain("   call → BuildOutput · gates: diffMatchesClaims\n");
    expect(result.stdout).toContain("   suite test: npm test\n");
    expect(result.stdout).toContain(
      "note: fix: not walked, a loop or branch the generated envelopes do not take (every suite passes and every review approves, so a fix or revise loop ends after its first round)",
    );
    expect(result.stdout).toContain("would be ACCEPTED: tests pass");
    expect(startedPrograms()).toBe("");
  });
});

const BRANCHY = `import { defineWorkflow, defineOutputType, EnvelopeBase, GenericOutput, z } from "sssf";

const Triage = defineOutputType(
  "TriageOutput",
  EnvelopeBase.extend({ severity: z.enum(["high", "low"]), needs_docs: z.boolean(), owners: z.array(z.string()).min(2) }),
  { status: "success", severity: "low", needs_docs: false, owners: ["a", "b"] },
);

export default defineWorkflow({
  name: "branchy",
  description: "triage, then two branches at once, then docs or a suite",
  agents: ["planner", "builder", "documenter"],
  suites: ["test"],
  phases: ["request", "triage", "left ∥ right", "docs", "hotfix", "test"],
  async run(run, request) {
    await run.engineer("request", { description: "Ask first" }, (phase) => phase.ask("go ahead?"));
    const triage = await run.agent("triage", { owner: "planner", description: "Triage" }, (phase) =>
      phase.call({ outputType: Triage, prompt: request }));
    await run.parallel([
      () => run.agent("left", { owner: "builder", description: "Left" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: "left" })),
      () => run.agent("right", { owner: "documenter", description: "Right" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: "right" })),
    ]);
    if (triage.severity === "high") {
      await run.agent("hotfix", { owner: "builder", description: "Hotfix" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: "fix" }));
    }
    if (triage.needs_docs) {
      await run.agent("docs", { owner: "documenter", description: "Docs" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: "docs" }));
    }
    const tested = await run.code("test", { owner: "quality", description: "Run the tests" }, (phase) =>
      phase.runSuite("test"));
    return run.finish({ accepted: tested.passed, reason: triage.owners.join(" and ") });
  },
});
`;

const UNGENERABLE = `import { defineWorkflow, defineOutputType, EnvelopeBase, z } from "sssf";

const Ticket = defineOutputType(
  "TicketOutput",
  EnvelopeBase.extend({ ticket: z.string().refine((value) => /^[A-Z]+-\\d+$/.test(value), "a ticket id like ABC-1") }),
  { status: "success", ticket: "ABC-1" },
);

export default defineWorkflow({
  name: "ticket",
  description: "files a ticket",
  agents: ["planner"],
  async run(run, request) {
    await run.engineer("request", { description: "Capture" }, (phase) => phase.log("ok"));
    const filed = await run.agent("file", { owner: "planner", description: "File the ticket" }, (phase) =>
      phase.call({ outputType: Ticket, prompt: request }));
    return run.finish({ accepted: true, reason: filed.ticket });
  },
});
`;

describe("sssf run --dry-run of a repo's own workflow", () => {
  it("walks parallel branches in order and takes the branches the generated envelope picks", async () => {
    write("adws/adw_branchy.ts", BRANCHY);
    const before = snapshot();
    const result = await dryRun(["branchy", "Triage the bug", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(snapshot()).toEqual(before);
    expect(startedPrograms()).toBe("");
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report).sort()).toEqual(
      ["accepted", "dry_run", "not_walked", "notes", "phases", "reason", "request", "workflow"].sort(),
    );
    expect(report.dry_run).toBe(true);
    expect(report.request).toBe("Triage the bug");
    // The enum's first value (high) takes the hotfix branch; needs_docs is true, so docs runs too.
    expect(report.phases.map((p: JsonPhase) => [p.number, p.name, p.kind, p.owner, p.branch])).toEqual([
      [1, "request", "engineer", "engineer", null],
      [2, "triage", "agent", "planner", null],
      [3, "left", "agent", "builder", "parallel 1 · branch 1/2"],
      [4, "right", "agent", "documenter", "parallel 1 · branch 2/2"],
      [5, "hotfix", "agent", "builder", null],
      [6, "docs", "agent", "documenter", null],
      [7, "test", "code", "quality", null],
    ]);
    expect(report.phases[0].actions).toEqual([{ action: "ask", question: "go ahead?" }]);
    const triage = report.phases[1].calls[0];
    expect(triage.output_type).toBe("TriageOutput");
    expect(triage.gates).toEqual([]);
    expect(triage.envelope).toMatchObject({ status: "success", severity: "high", needs_docs: true });
    expect(triage.envelope.owners).toHaveLength(2);
    expect(report.phases[6].actions).toEqual([{ action: "suite", suite: "test", command: ["npm", "test"] }]);
    expect(report.not_walked).toEqual([]);
    expect(report.accepted).toBe(true);
    expect(report.reason).toBe("<owners[0]> and <owners[1]>");
    expect(report.notes).toContain("the engineer's questions are taken as approved");

    const text = await dryRun(["branchy", "Triage the bug"]);
    expect(text.stdout).toContain("03 left (agent builder · pi) [parallel 1 · branch 1/2] Left\n");
    expect(text.stdout).toContain("   ask the engineer: go ahead?\n");
  });

  it("names the output type it cannot generate an example of, and the phase, exit 2", async () => {
    write("adws/adw_ticket.ts", UNGENERABLE);
    const before = snapshot();
    const result = await dryRun(["ticket", "File it"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim()).toBe(
      "sssf: phase 02 file (agent planner): cannot generate an example envelope of output type TicketOutput: the generated value fails its schema (ticket: a ticket id like ABC-1): a refinement or pattern sssf cannot satisfy by itself",
    );
    expect(snapshot()).toEqual(before);
    const json = await dryRun(["ticket", "File it", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.message).toContain("output type TicketOutput");
  });

  it("refuses the flags of a real run", async () => {
    const result = await dryRun(["build", "x", "--merge"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--merge: not with --dry-run");
    rmSync(started, { force: true });
  });
});
