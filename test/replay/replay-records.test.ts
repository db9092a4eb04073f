import { rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { failing, garbage, ok, outcomes, ReplayWorld } from "./replay-world.js";

/** Corrections, many runs at once, usage errors and incomplete records, through the real CLI. */
describe("sssf replay: corrections, selection and incomplete records", () => {
  let world: ReplayWorld | undefined;
  afterEach(() => world?.cleanup());

  /** Runs `sql` on the sandbox's trace, as a damaged or older record would leave it. */
  function damage(w: ReplayWorld, sql: string, ...params: string[]): void {
    const db = openRawSqlite(path.join(w.dir, "adws/adw_data/sssf.db"));
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  }

  it("a gate correction the current gate no longer asks for: now corrected; a failed run now passing: now accepted", async () => {
    world = new ReplayWorld(
      { first: [ok("risky start"), ok("safe start"), ok("risky again")], second: [ok("built")] },
      { retries: 1 },
    );
    world.workflow({ forbidden: "risky" });
    const corrected = await world.record("first");
    expect(corrected.result.code, corrected.result.stderr).toBe(0);
    // Corrections run out on the second run's only reply: it fails, and `two` is never called.
    world.limits({ retries: 0 });
    const rejected = await world.record("second");
    expect(rejected.result.code).toBe(1);

    world.workflow({});
    const { code, report } = await world.replayJson([corrected.adwId, rejected.adwId]);
    expect(code).toBe(1);
    const [first, second] = report.replays;
    const one = first?.phases.find((p) => p.phase === "one");
    expect(one?.outcome).toBe("now corrected");
    expect(one?.detail).toContain("a correction is no longer needed");
    expect(one?.detail).toContain("careful: summary: says risky");
    expect(second?.phases.find((p) => p.phase === "one")?.outcome).toBe("now accepted");
    // The suite and `two` were never recorded for the second run: the replay stops there, it invents nothing.
    expect(second?.stopped?.why).toContain(
      "not in the record: code phase test (owner quality) at position 2: the run recorded 1 phase(s)",
    );
  });

  it("--since and --workflow pick the runs; usage errors exit 2 naming the flag", async () => {
    world = new ReplayWorld({
      first: [ok("a"), garbage, ok("b"), failing("c gave up")],
      second: [ok("x"), ok("y")],
    });
    const a = await world.record("one");
    const b = await world.record("two");
    const c = await world.record("three");
    expect([a.result.code, b.result.code, c.result.code]).toEqual([0, 0, 1]);
    const other = await world.run(["run", "prompt", "say hi", "--agent", "second"]);
    expect(other.code).toBe(1); // `second` has no scripted turn left: a run of another workflow all the same

    const trio = await world.replayJson(["--since", "1h", "--workflow", "trio"]);
    expect(trio.code).toBe(0);
    expect(trio.report.replays.map((r) => r.adw_id)).toEqual([a.adwId, b.adwId, c.adwId]);
    expect(outcomes(trio.report.replays[1])).toEqual(["1 one same", "2 test same", "3 two same"]);
    expect(trio.report.replays[1]?.phases[0]?.recorded_sends).toBe(2);
    expect(outcomes(trio.report.replays[2])).toEqual(["1 one same"]);
    expect(trio.report.replays[2]?.replayed?.accepted).toBe(false);
    const all = await world.replayJson(["--since", "2h"]);
    expect(all.report.replays).toHaveLength(4);
    expect(all.report.replays[3]?.workflow).toBe("prompt");

    for (const [args, flag] of [
      [[], "--since"],
      [["--since", "3x"], "--since"],
      [["--workflow", "trio"], "--workflow"],
      [[a.adwId, "--since", "1h"], "--since"],
    ] as const) {
      const result = await world.run(["replay", ...args]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain(flag);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const unknown = await world.run(["replay", "deadbeef"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toContain("unknown adw_id deadbeef: no such session");
  });

  it("incomplete records: replays as far as it can and says where and why it stopped", async () => {
    world = new ReplayWorld({ first: [ok("a"), ok("b"), ok("c")], second: [ok("x"), ok("y"), ok("z")] });
    const noReplies = await world.record("one");
    const noJournal = await world.record("two");
    const noRawOutput = await world.record("three");
    damage(
      world,
      "DELETE FROM envelopes WHERE adw_id = ? AND phase_id IN (SELECT id FROM phases WHERE name = 'two')",
      noReplies.adwId,
    );
    damage(world, "DELETE FROM steps WHERE adw_id = ?", noJournal.adwId);
    rmSync(path.join(world.sb.sessionDir(noRawOutput.adwId), "first/raw_output.jsonl"), { force: true });

    const { code, report } = await world.replayJson([noReplies.adwId, noJournal.adwId, noRawOutput.adwId]);
    expect(code).toBe(1);
    const [replies, journal, raw] = report.replays;
    expect(outcomes(replies)).toEqual(["1 one same", "2 test same", "3 two not in the record"]);
    expect(replies?.stopped).toMatchObject({ position: 3, phase: "two", agent: "second", send: 1 });
    expect(outcomes(journal)).toEqual(["1 one same", "2 test not in the record", "3 two not reached"]);
    expect(journal?.stopped?.why).toContain(
      "test (position 2): suite#1 cannot be answered: the run has no step journal",
    );
    expect(raw?.changed).toBe(false);
    expect(raw?.notes.join("\n")).toContain("first/raw_output.jsonl is missing");

    const text = await world.run(["replay", noJournal.adwId]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("stopped at 02 test: test (position 2): suite#1 cannot be answered");
    expect(text.stderr).not.toMatch(/\n\s+at /);
  });
});
