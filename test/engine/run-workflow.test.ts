import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow } from "../../src/api/run-api.js";
import { BuildOutput, GenericOutput, PlanOutput } from "../../src/envelope/schemas.js";
import { gates } from "../../src/gates/index.js";
import { runWorkflow } from "../../src/library.js";
import { createRepo, ok, type Repo } from "./workflow-fixture.js";

interface Row {
  [key: string]: unknown;
}

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

describe("runWorkflow", () => {
  it("injects each accepted envelope into the next agent's prompt, and none with previous: null", async () => {
    repo = createRepo({
      planner: [{ reply: ok({ summary: "plan made", notes_for_next_agent: "use the blue widget" }) }],
      builder: [{ reply: ok({ summary: "built" }) }, { reply: ok({ summary: "fresh" }) }],
    });
    const workflow = defineWorkflow({
      name: "chain",
      description: "",
      agents: ["planner", "builder"],
      async run(run, request) {
        await run.agent("plan", { owner: "planner", description: "" }, (p) =>
          p.call({ outputType: PlanOutput, prompt: request }),
        );
        await run.agent("build", { owner: "builder", description: "" }, (p) =>
          p.call({ outputType: BuildOutput, prompt: request }),
        );
        await run.agent("again", { owner: "builder", description: "" }, (p) =>
          p.call({ outputType: GenericOutput, prompt: request, previous: null }),
        );
        return run.finish({ accepted: true });
      },
    });
    const outcome = await runWorkflow({ workflow, request: "make it", config: repo.config });
    expect(outcome.exitCode).toBe(0);
    const builderSends = repo.agents.builder?.sends() ?? [];
    expect(builderSends[0]?.prompt).toContain('"notes_for_next_agent": "use the blue widget"');
    expect(builderSends[1]?.prompt).toContain("## previous_envelope\n\n(none)");
    expect(repo.query<Row>("SELECT count(*) AS n FROM events WHERE type = 'handoff'")).toEqual([{ n: 1 }]);
  });

  it("substitutes placeholders in one pass: text inside a value is never substituted again", async () => {
    repo = createRepo({ a: [{ reply: ok() }] });
    const workflow = defineWorkflow({
      name: "p",
      description: "",
      agents: ["a"],
      async run(run, request) {
        await run.agent("x", { owner: "a", description: "" }, (p) =>
          p.call({ outputType: GenericOutput, prompt: request }),
        );
        return run.finish({ accepted: true });
      },
    });
    await runWorkflow({ workflow, request: "literal {{adw_id}} and {{prompt}}", config: repo.config });
    const prompt = repo.agents.a?.sends()[0]?.prompt ?? "";
    expect(prompt).toContain("literal {{adw_id}} and {{prompt}}");
    expect(prompt).toContain("## Report");
  });

  it("an exception outside any phase ends the session as fail with the error traced", async () => {
    repo = createRepo({ a: [] });
    const workflow = defineWorkflow({
      name: "boom",
      description: "",
      agents: [],
      async run(run) {
        await run.engineer("e", { description: "" }, () => undefined);
        throw new TypeError("cannot read the widget");
      },
    });
    const outcome = await runWorkflow({ workflow, request: "x", config: repo.config });
    expect(outcome).toMatchObject({
      accepted: false,
      exitCode: 1,
      reason: "TypeError: cannot read the widget",
    });
    expect(repo.query<Row>("SELECT status, reason FROM sessions")).toEqual([
      { status: "fail", reason: "TypeError: cannot read the widget" },
    ]);
    const [error] = repo.query<Row>("SELECT phase_id, payload FROM events WHERE type = 'error'");
    expect(error?.phase_id).toBeNull();
    expect(String(error?.payload)).toContain("stack");
  });

  it("an exception inside a code phase fails that phase, then the run", async () => {
    repo = createRepo({ a: [] });
    const workflow = defineWorkflow({
      name: "boom",
      description: "",
      agents: [],
      async run(run) {
        await run.code("explode", { description: "" }, () => {
          throw new Error("disk full");
        });
        return run.finish({ accepted: true });
      },
    });
    const outcome = await runWorkflow({ workflow, request: "x", config: repo.config });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.phases.map((p) => [p.name, p.status, p.error])).toEqual([
      ["explode", "fail", "disk full"],
    ]);
  });

  it("a workflow that ends without finish() fails", async () => {
    repo = createRepo({ a: [] });
    const workflow = defineWorkflow({
      name: "forgetful",
      description: "",
      agents: [],
      run: (async () => ({ accepted: true })) as never,
    });
    const outcome = await runWorkflow({ workflow, request: "x", config: repo.config });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.reason).toContain("without run.finish()");
  });

  it("finish({accepted: false}) exits 1 with the reason, even when every phase passed", async () => {
    repo = createRepo({ a: [] });
    const workflow = defineWorkflow({
      name: "picky",
      description: "",
      agents: [],
      async run(run) {
        await run.engineer("look", { description: "" }, () => undefined);
        return run.finish({ accepted: false, reason: "review not approved" });
      },
    });
    const outcome = await runWorkflow({ workflow, request: "x", config: repo.config });
    expect(outcome).toMatchObject({ accepted: false, exitCode: 1, reason: "review not approved" });
    expect(outcome.session.status).toBe("fail");
    expect(outcome.phases[0]?.status).toBe("success");
  });

  it("hands a failing quality suite to the next agent as a VerifyOutput envelope", async () => {
    repo = createRepo(
      { fixer: [{ reply: ok({ summary: "fixed" }) }] },
      {
        top: {
          quality: {
            test: { command: [process.execPath, "-e", "console.log('1 failed: widget'); process.exit(3)"] },
          },
        },
      },
    );
    const workflow = defineWorkflow({
      name: "verify",
      description: "",
      agents: ["fixer"],
      async run(run, request) {
        const verify = await run.code("test", { owner: "quality", description: "" }, (p) =>
          p.runSuite("test"),
        );
        await run.agent("fix", { owner: "fixer", description: "" }, (p) =>
          p.call({ outputType: GenericOutput, prompt: request }),
        );
        return run.finish({ accepted: verify.passed });
      },
    });
    const outcome = await runWorkflow({ workflow, request: "fix tests", config: repo.config });
    expect(outcome.exitCode).toBe(1);
    const prompt = repo.agents.fixer?.sends()[0]?.prompt ?? "";
    expect(prompt).toContain('"suite": "test"');
    expect(prompt).toContain('"exit_code": 3');
    expect(prompt).toContain("1 failed: widget");
  });

  it("an unknown quality suite fails the phase, naming the config key", async () => {
    repo = createRepo({ a: [] });
    const workflow = defineWorkflow({
      name: "verify",
      description: "",
      agents: [],
      async run(run) {
        await run.code("lint", { description: "" }, (p) => p.runSuite("lint"));
        return run.finish({ accepted: true });
      },
    });
    const outcome = await runWorkflow({ workflow, request: "x", config: repo.config });
    expect(outcome.reason).toContain("quality.lint: no such suite");
  });

  it("gates a builder with diffMatchesClaims against what it really changed", async () => {
    repo = createRepo({
      builder: [
        {
          tool_calls: [
            { tool: "write", write_file: { path: "src/a.ts", content: "a\n" } },
            { tool: "write", write_file: { path: "src/b.ts", content: "b\n" } },
          ],
          reply: ok({ changed_files: ["src/a.ts"] }),
        },
        { match: "diffMatchesClaims", reply: ok({ changed_files: ["src/a.ts", "src/b.ts"] }) },
      ],
    });
    const workflow = defineWorkflow({
      name: "build",
      description: "",
      agents: ["builder"],
      async run(run, request) {
        const build = await run.agent("build", { owner: "builder", description: "" }, (p) =>
          p.call({ outputType: BuildOutput, prompt: request, gates: [gates.diffMatchesClaims] }),
        );
        return run.finish({ accepted: true, reason: build.changed_files.join(",") });
      },
    });
    const outcome = await runWorkflow({ workflow, request: "build", config: repo.config });
    expect(outcome.reason).toBe("src/a.ts,src/b.ts");
    const second = repo.agents.builder?.sends()[1]?.prompt ?? "";
    expect(second).toContain("src/b.ts");
    const [failed] = repo.query<Row>("SELECT checks FROM gate_results WHERE ok = 0");
    expect(String(failed?.checks)).toContain("changed but not claimed");
    const envelope = JSON.parse(readFileSync(path.join(outcome.sessionDir, "builder/envelope.json"), "utf8"));
    expect(envelope.changed_files).toEqual(["src/a.ts", "src/b.ts"]);
  });

  it("a joined session re-hydrates the last accepted envelope for the next agent", async () => {
    repo = createRepo({
      planner: [{ reply: ok({ summary: "plan v1", notes_for_next_agent: "remember the cache" }) }],
      builder: [{ reply: ok({ summary: "built" }) }],
    });
    const plan = defineWorkflow({
      name: "plan",
      description: "",
      agents: ["planner"],
      async run(run, request) {
        await run.agent("plan", { owner: "planner", description: "" }, (p) =>
          p.call({ outputType: PlanOutput, prompt: request }),
        );
        return run.finish({ accepted: true });
      },
    });
    const build = defineWorkflow({
      name: "build",
      description: "",
      agents: ["builder"],
      async run(run, request) {
        await run.agent("build", { owner: "builder", description: "" }, (p) =>
          p.call({ outputType: BuildOutput, prompt: request }),
        );
        return run.finish({ accepted: true });
      },
    });
    const first = await runWorkflow({ workflow: plan, request: "plan it", config: repo.config });
    await runWorkflow({ workflow: build, request: "build it", config: repo.config, adwId: first.adwId });
    expect(repo.agents.builder?.sends()[0]?.prompt).toContain("remember the cache");
  });
});
