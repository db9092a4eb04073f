import { afterEach, describe, expect, it } from "vitest";
import { type AgentPhase, defineWorkflow, type Run } from "../../src/api/run-api.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import { isSssfError } from "../../src/errors/sssf-error.js";
import { ok, overlap, World } from "./parallel-fixture.js";

let world: World | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An agent phase answering `prompt` with GenericOutput, resolving to the envelope's summary. */
function ask(run: Run, name: string, owner: string, prompt = name): Promise<string> {
  return run.agent(name, { owner, description: `${name} by ${owner}` }, async (phase: AgentPhase) => {
    const envelope = await phase.call({ outputType: GenericOutput, prompt });
    return envelope.summary;
  });
}

interface EventTimes {
  phase: string;
  type: string;
  started_at: string;
}

describe("run.parallel", () => {
  it("overlaps its phases, numbers them in start order, returns results in order, and joins the envelope in order", async () => {
    world = new World({
      seed: { turns: [{ reply: ok({ summary: "seeded" }) }] },
      // alpha is first in order but finishes last; beta is last in order and finishes first.
      alpha: { turns: [{ delay_ms: 1200, reply: ok({ summary: "from alpha" }) }] },
      beta: { turns: [{ delay_ms: 300, reply: ok({ summary: "from beta" }) }] },
      after: { turns: [{ reply: ok({ summary: "after the join" }) }] },
    });
    let results: unknown[] = [];
    const workflow = defineWorkflow({
      name: "fan",
      description: "",
      agents: ["seed", "alpha", "beta", "after"],
      async run(run) {
        await ask(run, "seed", "seed");
        results = await run.parallel([
          () => ask(run, "spec", "alpha"),
          () =>
            run.code("tally", { description: "a code branch" }, async (phase) => {
              await sleep(200);
              phase.log("counted");
              return 42;
            }),
          () => ask(run, "design", "beta"),
        ]);
        await ask(run, "tasks", "after");
        return run.finish({ accepted: true });
      },
    });
    const outcome = await world.run(workflow);
    expect(outcome.reason).toBe("accepted");
    expect(outcome.exitCode).toBe(0);
    expect(results).toEqual(["from alpha", 42, "from beta"]);

    const phases = world.phases(outcome.adwId);
    expect(phases.map((p) => [p.number, p.name, p.status])).toEqual([
      [1, "seed", "success"],
      [2, "spec", "success"],
      [3, "tally", "success"],
      [4, "design", "success"],
      [5, "tasks", "success"],
    ]);
    const [, spec, tally, design, tasks] = phases;
    if (!spec || !tally || !design || !tasks) throw new Error("missing phases");
    expect(overlap(spec, design)).toBe(true);
    expect(overlap(spec, tally)).toBe(true);
    expect(Date.parse(design.ended_at ?? "")).toBeLessThan(Date.parse(spec.ended_at ?? ""));
    expect(Date.parse(tasks.started_at)).toBeGreaterThanOrEqual(Date.parse(spec.ended_at ?? ""));

    // The phase_start / phase_end events overlap the same way.
    const events = world.query<EventTimes>(
      `SELECT p.name AS phase, e.type, e.started_at FROM events e JOIN phases p ON p.id = e.phase_id
       WHERE e.adw_id = ? AND e.type IN ('phase_start', 'phase_end')`,
      outcome.adwId,
    );
    const at = (phase: string, type: string) =>
      Date.parse(events.find((e) => e.phase === phase && e.type === type)?.started_at ?? "");
    expect(at("spec", "phase_start")).toBeLessThan(at("design", "phase_end"));
    expect(at("design", "phase_start")).toBeLessThan(at("spec", "phase_end"));

    // Inside the group both branches got the envelope from before it; after the join, the last branch's in order.
    const previousOf = (agent: string) => world?.agents[agent]?.sends()[0]?.prompt ?? "";
    expect(previousOf("alpha")).toContain('"summary": "seeded"');
    expect(previousOf("beta")).toContain('"summary": "seeded"');
    expect(previousOf("after")).toContain('"summary": "from beta"');
  });

  it("lets every branch settle when one fails, then rejects with the first error in order", async () => {
    world = new World({
      alpha: { turns: [{ delay_ms: 900, reply: ok({ status: "fail", summary: "alpha gave up" }) }] },
      beta: { turns: [{ reply: ok({ status: "fail", summary: "beta gave up" }) }] },
      gamma: { turns: [{ delay_ms: 1500, reply: ok({ summary: "gamma done" }) }] },
    });
    let caught: unknown;
    const workflow = defineWorkflow({
      name: "fail-one",
      description: "",
      agents: ["alpha", "beta", "gamma"],
      async run(run) {
        try {
          await run.parallel([
            () => ask(run, "first", "alpha"),
            () => ask(run, "second", "beta"),
            () => ask(run, "third", "gamma"),
          ]);
        } catch (error) {
          caught = error;
          throw error;
        }
        return run.finish({ accepted: true });
      },
    });
    const outcome = await world.run(workflow);
    expect(outcome.exitCode).toBe(1);
    // beta failed first in time, alpha is first in order: alpha's error is the one.
    expect(String((caught as Error).message)).toContain("alpha");
    expect(outcome.reason).toContain("alpha gave up");
    const phases = world.phases(outcome.adwId);
    expect(phases.map((p) => [p.name, p.status])).toEqual([
      ["first", "fail"],
      ["second", "fail"],
      ["third", "success"],
    ]);
    expect(phases.every((p) => p.ended_at !== null)).toBe(true);
    expect(world.query("SELECT id FROM phases WHERE status = 'running'")).toEqual([]);
    expect(world.query<{ status: string }>("SELECT status FROM sessions")).toEqual([{ status: "fail" }]);
  });

  it("refuses a second concurrent phase owned by the same agent, up front, and lets the first finish", async () => {
    world = new World({
      alpha: { turns: [{ delay_ms: 400, reply: ok({ summary: "only once" }), repeat: true }] },
    });
    let caught: unknown;
    const workflow = defineWorkflow({
      name: "twice",
      description: "",
      agents: ["alpha"],
      async run(run) {
        try {
          await run.parallel([() => ask(run, "spec", "alpha"), () => ask(run, "design", "alpha")]);
        } catch (error) {
          caught = error;
        }
        return run.finish({ accepted: false, reason: String((caught as Error | undefined)?.message) });
      },
    });
    const outcome = await world.run(workflow);
    expect(isSssfError(caught)).toBe(true);
    expect((caught as { code?: string }).code).toBe("usage");
    expect(outcome.reason).toBe(
      "phase design: agent alpha is already running phase 01 spec; one agent session cannot take two sends at once, so phases running in parallel need different owners",
    );
    expect(world.phases(outcome.adwId).map((p) => [p.name, p.status])).toEqual([["spec", "success"]]);
    expect(world.agents.alpha?.sends()).toHaveLength(1);
  });

  it("refuses two calls of one phase at once, and allows the same agent again once its phase ended", async () => {
    world = new World({
      alpha: { turns: [{ delay_ms: 300, reply: ok({ summary: "answer" }), repeat: true }] },
    });
    let caught: unknown;
    const workflow = defineWorkflow({
      name: "calls",
      description: "",
      agents: ["alpha"],
      async run(run) {
        await run.agent("both", { owner: "alpha", description: "" }, async (phase) => {
          const calls = [
            phase.call({ outputType: GenericOutput, prompt: "one" }),
            phase.call({ outputType: GenericOutput, prompt: "two" }),
          ];
          const settled = await Promise.allSettled(calls);
          caught = settled.find((s) => s.status === "rejected")?.reason;
        });
        await run.parallel([() => ask(run, "later", "alpha")]);
        return run.finish({ accepted: true });
      },
    });
    const outcome = await world.run(workflow);
    expect(outcome.exitCode).toBe(0);
    expect(String((caught as Error).message)).toBe(
      "phase both: agent alpha is already answering a call; one agent session cannot take two sends at once",
    );
    expect(world.agents.alpha?.sends().map((s) => s.prompt.includes("## prompt\n\none"))).toEqual([
      true,
      false,
    ]);
  });
});
