import { afterEach, describe, expect, it, vi } from "vitest";
import type { ScriptedTurn } from "../../src/testing/scripted-turn.js";
import { envelopeJson } from "../helpers/sandbox.js";
import { ClusterWorld, sharedRestate } from "./cluster-world.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

interface Outcome {
  session: { status: string; accepted: number | null; reason: string | null; cost_usd: number };
  phases: string[];
  errors: string[];
  breaches: string[];
}

/** What a run did, by the trace, with its adw_id taken out so two runs compare. */
function outcome(cluster: ClusterWorld, adwId: string): Outcome {
  const strip = (text: string | null) => (text ?? "").replaceAll(adwId, "<adw_id>");
  const [session] = cluster.query<Outcome["session"]>(
    "SELECT status, accepted, reason, cost_usd FROM sessions WHERE adw_id = ?",
    adwId,
  );
  const events = cluster.query<{ type: string; name: string; payload: string | null }>(
    "SELECT type, name, payload FROM events WHERE adw_id = ? AND type = 'error' ORDER BY started_at, id",
    adwId,
  );
  return {
    session: { ...(session as Outcome["session"]), reason: strip(session?.reason ?? null) },
    phases: cluster.phases(adwId),
    errors: events.map((e) => strip(e.name)),
    breaches: events
      .filter((e) => e.name.startsWith("write outside boundary: "))
      .map((e) => {
        const payload = JSON.parse(e.payload ?? "{}") as Record<string, unknown>;
        return `${String(payload.path)} ${String(payload.change)} ${String(payload.restored)}`;
      }),
  };
}

describe("a run on a worker does what the same run does locally", () => {
  it("the write boundary restores what the agent wrote outside it, and the run's budget stops it, as locally", async () => {
    const turns = (): { first: ScriptedTurn[]; second: ScriptedTurn[]; third: ScriptedTurn[] } => ({
      first: [{ reply: envelopeJson({ summary: "planned" }), usage: { input_tokens: 100, cost: 0.3 } }],
      second: [
        {
          tool_calls: [
            { tool: "write", write_file: { path: "src/feature.js", content: "built\n" } },
            { tool: "write", write_file: { path: "outside.txt", content: "no\n" } },
          ],
          reply: envelopeJson({ summary: "built", artifacts: ["src/feature.js"] }),
          usage: { input_tokens: 100, cost: 0.3 },
        },
      ],
      third: [{ reply: envelopeJson({ summary: "reviewed" }) }],
    });
    const once = turns();
    // Each agent answers the local run's send, then the cluster run's.
    world = new ClusterWorld(
      {
        first: [...once.first, ...turns().first],
        second: [...once.second, ...turns().second],
        third: [...once.third, ...turns().third],
      },
      { restate, config: { limits: { max_cost_usd: 0.5 } }, agents: { second: { writes: ["src/**"] } } },
    );
    await world.start(1);
    const local = await world.cli(["run", "three", "add a feature", "--adw-id", "1a1a1a1a"]);
    const cluster = await world.cli([
      "run",
      "three",
      "add a feature",
      "--engine",
      "restate",
      "--adw-id",
      "2b2b2b2b",
    ]);
    expect(local.code).toBe(1);
    expect(cluster.code, `${cluster.stdout}\n${cluster.stderr}\n${world.logs()}`).toBe(local.code);
    const here = outcome(world, "1a1a1a1a");
    // The run really met both: a breach restored, and the budget's error.
    expect(here.breaches).toEqual(["outside.txt added true"]);
    expect(here.errors.join("\n")).toMatch(/budget exceeded: run max_cost_usd 0\.50/);
    expect(outcome(world, "2b2b2b2b")).toEqual(here);
    expect(world.sends("first")).toBe(2);
    expect(world.sends("second")).toBe(2);
  });
});
