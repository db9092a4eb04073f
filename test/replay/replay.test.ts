import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ok, outcomes, ReplayWorld } from "./replay-world.js";

/**
 * `sssf replay` through the real CLI: runs of `trio` recorded with scripted exec agents, then replayed
 * after changing a gate, an output type, a prompt, the workflow's phases, or nothing.
 */
describe("sssf replay", () => {
  let world: ReplayWorld | undefined;
  afterEach(() => world?.cleanup());

  async function recorded(): Promise<{ world: ReplayWorld; adwId: string }> {
    world = new ReplayWorld({ first: [ok("risky plan made")], second: [ok("built it")] });
    const { adwId, result } = await world.record();
    expect(result.code, result.stderr).toBe(0);
    // The agents were called once each; a replay must not call them again.
    expect(world.sb.agent("first").sends()).toHaveLength(1);
    return { world, adwId };
  }

  it("replays an unchanged run: every phase the same, exit 0, no agent started, the original untouched", async () => {
    const { world, adwId } = await recorded();
    const before = world.fingerprint(adwId);
    const text = await world.run(["replay", adwId]);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toContain(`replay ${adwId} (trio)`);
    expect(text.stdout).toMatch(/replayed 1 run\(s\): 0 changed, 1 same/);
    const { code, report } = await world.replayJson([adwId]);
    expect(code).toBe(0);
    expect(report.changed).toBe(false);
    const [run] = report.replays;
    expect(outcomes(run)).toEqual(["1 one same", "2 test same", "3 two same"]);
    expect(run?.stopped).toBeNull();
    expect(run?.replayed).toEqual({ accepted: true, reason: "built it" });
    expect(world.sb.agent("first").sends()).toHaveLength(1);
    expect(world.sb.agent("second").sends()).toHaveLength(1);
    expect(world.fingerprint(adwId)).toBe(before);
    // The replay's own record, linked to the original, kept apart from the runs.
    const dir = run?.record_dir ?? "";
    expect(dir.startsWith(path.join(world.dir, "adws/adw_data/replays/sessions"))).toBe(true);
    const saved = JSON.parse(readFileSync(path.join(dir, "replay.json"), "utf8")) as { replay_of: string };
    expect(saved.replay_of).toBe(adwId);
    const sessions = world.sb.query<{ adw_id: string }>("SELECT adw_id FROM sessions");
    expect(sessions.map((s) => s.adw_id)).toEqual([adwId]);
  });

  it("a stricter gate: now rejected with the gate's violation, exit 1", async () => {
    const { world, adwId } = await recorded();
    world.workflow({ forbidden: "risky" });
    const before = world.fingerprint(adwId);
    const { code, report } = await world.replayJson([adwId]);
    expect(code).toBe(1);
    const [run] = report.replays;
    const one = run?.phases.find((p) => p.phase === "one");
    expect(one?.outcome).toBe("now rejected");
    expect(one?.detail).toContain("careful: summary: says risky");
    expect(run?.stopped?.phase).toBe("one");
    expect(run?.stopped?.send).toBe(2);
    expect(run?.stopped?.agent).toBe("first");
    expect(world.fingerprint(adwId)).toBe(before);
    const text = await world.run(["replay", adwId]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/01 one\s+agent\s+now rejected: careful: summary: says risky/);
    expect(text.stdout).toMatch(/stopped at 01 one, send 2 of first: not in the record/);
  });

  it("a new required field in an output type: now rejected with the schema problem", async () => {
    const { world, adwId } = await recorded();
    world.workflow({ ticket: true });
    const { code, report } = await world.replayJson([adwId]);
    expect(code).toBe(1);
    const [run] = report.replays;
    expect(outcomes(run).slice(0, 2)).toEqual(["1 one same", "2 test same"]);
    const two = run?.phases.find((p) => p.phase === "two");
    expect(two?.outcome).toBe("now rejected");
    expect(two?.detail).toMatch(/^schema: .*ticket/);
  });

  it("a changed prompt: the decisions stay the same, exit 0", async () => {
    const { world, adwId } = await recorded();
    world.workflow({ verb: "carry on with" });
    const { code, report } = await world.replayJson([adwId]);
    expect(code).toBe(0);
    expect(outcomes(report.replays[0])).toEqual(["1 one same", "2 test same", "3 two same"]);
  });

  it("a workflow that now calls another agent: not in the record, said exactly, nothing invented", async () => {
    const { world, adwId } = await recorded();
    world.workflow({ extra: true });
    const { code, report } = await world.replayJson([adwId]);
    expect(code).toBe(1);
    const [run] = report.replays;
    expect(outcomes(run)).toEqual(["1 one same", "2 test same", "3 two same", "4 three not in the record"]);
    expect(run?.stopped?.why).toContain("not in the record: agent phase three (owner second) at position 4");
    expect(world.sb.agent("second").sends()).toHaveLength(1);
  });
});
