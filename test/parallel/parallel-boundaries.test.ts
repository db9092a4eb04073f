import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow, type Run } from "../../src/api/run-api.js";
import { BuildOutput, GenericOutput } from "../../src/envelope/schemas.js";
import { gates } from "../../src/gates/index.js";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { ok, overlap, STARTING_FILES, World } from "./parallel-fixture.js";

let world: World | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

/** alpha may write a/**, beta b/**; each plays one turn. */
function pair(alpha: ScriptedTurn, beta: ScriptedTurn): World {
  world = new World({
    alpha: { turns: [alpha], writes: ["a/**"] },
    beta: { turns: [beta], writes: ["b/**"] },
  });
  return world;
}

/** Runs alpha's phase `spec` and beta's phase `design` in parallel; the run fails when either does. */
const fanOut = defineWorkflow({
  name: "fan",
  description: "",
  agents: ["alpha", "beta"],
  async run(run: Run) {
    const call = (name: string, owner: string) =>
      run.agent(name, { owner, description: "" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: name }),
      );
    await run.parallel([() => call("spec", "alpha"), () => call("design", "beta")]);
    return run.finish({ accepted: true });
  },
});

const writeFile = (file: string, content: string) => ({ tool: "write", write_file: { path: file, content } });

describe("write boundaries of parallel agents", () => {
  it("keeps the disjoint writes of two overlapping agents", async () => {
    const box = pair(
      { delay_ms: 500, tool_calls: [writeFile("a/one.txt", "alpha\n")], reply: ok({ summary: "a" }) },
      { delay_ms: 500, tool_calls: [writeFile("b/two.txt", "beta\n")], reply: ok({ summary: "b" }) },
    );
    const outcome = await box.run(fanOut);
    expect(outcome.exitCode).toBe(0);
    const [spec, design] = box.phases(outcome.adwId);
    if (!spec || !design) throw new Error("missing phases");
    expect(overlap(spec, design)).toBe(true);
    expect(box.read("a/one.txt")).toBe("alpha\n");
    expect(box.read("b/two.txt")).toBe("beta\n");
    expect(box.breaches(outcome.adwId)).toEqual([]);
  });

  it("restores what one agent's tool call wrote into a sibling's area, and keeps the sibling's own write", async () => {
    const box = pair(
      {
        delay_ms: 300,
        tool_calls: [writeFile("a/one.txt", "alpha\n"), writeFile("b/intrusion.txt", "alpha was here\n")],
        reply: ok({ summary: "a" }),
      },
      { delay_ms: 600, tool_calls: [writeFile("b/own.txt", "beta\n")], reply: ok({ summary: "b" }) },
    );
    const outcome = await box.run(fanOut);
    expect(outcome.exitCode).toBe(1);
    expect(box.phases(outcome.adwId).map((p) => [p.name, p.status])).toEqual([
      ["spec", "fail"],
      ["design", "success"],
    ]);
    expect(box.read("b/intrusion.txt")).toBeNull();
    expect(box.read("b/own.txt")).toBe("beta\n");
    expect(box.read("a/one.txt")).toBe("alpha\n");
    expect(box.breaches(outcome.adwId)).toEqual([
      {
        agent: "alpha",
        phase: "spec",
        payload: { path: "b/intrusion.txt", change: "added", rule: "outside_writes", restored: true },
      },
    ]);
    expect(outcome.reason).toContain(
      "alpha wrote outside its boundary: b/intrusion.txt (added, outside_writes)",
    );
  });

  it("puts a write outside both areas on the agent whose tool call named it", async () => {
    const box = pair(
      { delay_ms: 300, tool_calls: [writeFile("docs/guide.md", "hijacked\n")], reply: ok({ summary: "a" }) },
      { delay_ms: 900, tool_calls: [writeFile("b/two.txt", "beta\n")], reply: ok({ summary: "b" }) },
    );
    const outcome = await box.run(fanOut);
    expect(box.read("docs/guide.md")).toBe(STARTING_FILES["docs/guide.md"]);
    expect(box.read("b/two.txt")).toBe("beta\n");
    expect(box.breaches(outcome.adwId)).toEqual([
      {
        agent: "alpha",
        phase: "spec",
        payload: { path: "docs/guide.md", change: "modified", rule: "outside_writes", restored: true },
      },
    ]);
    expect(box.phases(outcome.adwId).map((p) => p.status)).toEqual(["fail", "success"]);
  });

  it("restores a shell write outside both areas once, and reports it on every agent sending at the time", async () => {
    const box = pair(
      {
        tool_calls: [{ tool: "bash", bash: "printf 'three\\n' >> notes/todo.txt" }],
        reply: ok({ summary: "a" }),
      },
      { delay_ms: 2500, reply: ok({ summary: "b" }) },
    );
    const outcome = await box.run(fanOut);
    expect(outcome.exitCode).toBe(1);
    expect(box.read("notes/todo.txt")).toBe(STARTING_FILES["notes/todo.txt"]);
    expect(box.porcelain()).toBe("");
    const note = "changed while alpha, beta were sending, and no tool call named it: reported on each";
    const payload = {
      path: "notes/todo.txt",
      change: "modified",
      rule: "outside_writes",
      restored: true,
      note,
    };
    expect(box.breaches(outcome.adwId)).toEqual([
      { agent: "alpha", phase: "spec", payload },
      { agent: "beta", phase: "design", payload },
    ]);
    expect(box.phases(outcome.adwId).map((p) => [p.status, p.error])).toEqual([
      [
        "fail",
        `alpha wrote outside its boundary: notes/todo.txt (modified, outside_writes) restored (${note})`,
      ],
      [
        "fail",
        `beta wrote outside its boundary: notes/todo.txt (modified, outside_writes) restored (${note})`,
      ],
    ]);
  });

  it("shows a parallel agent's diff gate only the paths inside its writes or named by its tool calls", async () => {
    world = new World({
      alpha: {
        writes: ["a/**"],
        turns: [
          {
            delay_ms: 600,
            tool_calls: [writeFile("a/one.txt", "alpha\n")],
            reply: ok({ summary: "a", changed_files: ["a/one.txt"] }),
          },
        ],
      },
      beta: {
        writes: ["b/**"],
        turns: [
          { delay_ms: 100, tool_calls: [writeFile("b/two.txt", "beta\n")], reply: ok({ summary: "b" }) },
        ],
      },
    });
    const workflow = defineWorkflow({
      name: "gated",
      description: "",
      agents: ["alpha", "beta"],
      async run(run) {
        await run.parallel([
          () =>
            run.agent("build", { owner: "alpha", description: "", retries: 0 }, (phase) =>
              phase.call({ outputType: BuildOutput, prompt: "build", gates: [gates.diffMatchesClaims] }),
            ),
          () =>
            run.agent("design", { owner: "beta", description: "" }, (phase) =>
              phase.call({ outputType: GenericOutput, prompt: "design" }),
            ),
        ]);
        return run.finish({ accepted: true });
      },
    });
    const outcome = await world.run(workflow);
    expect(outcome.exitCode).toBe(0);
    const [build, design] = world.phases(outcome.adwId);
    if (!build || !design) throw new Error("missing phases");
    expect(overlap(build, design)).toBe(true);
    // beta's b/two.txt changed during alpha's call, yet alpha's gate saw (and checked) only a/one.txt.
    const rows = world.query<{ gate: string; ok: number; checks: string }>(
      "SELECT gate, ok, checks FROM gate_results WHERE adw_id = ?",
      outcome.adwId,
    );
    expect(
      rows.map((r) => [r.gate, r.ok, (JSON.parse(r.checks) as { item: string }[]).map((c) => c.item)]),
    ).toEqual([["diffMatchesClaims", 1, ["a/one.txt"]]]);
    expect(world.read("b/two.txt")).toBe("beta\n");
  });
});
