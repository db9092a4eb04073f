import { describe, expect, it } from "vitest";
import { buildJournal, stepKey } from "../../src/engine/durable/step-journal.js";
import type { PhaseRow, StepRow } from "../../src/trace/events.js";
import { phaseRow } from "../trace/trace-fixtures.js";

const T0 = Date.UTC(2026, 0, 1);
let clock = 0;

function step(
  attempt: number,
  position: number,
  op: string,
  replayed = 0,
  phaseId = `s-p0${position}`,
): StepRow {
  const key = op === "start" ? "start" : stepKey(position, `phase-${position}`, op, 1);
  clock += 1;
  return {
    id: `s-a${attempt}-${key}`,
    adw_id: "s",
    attempt,
    key,
    position,
    phase_id: phaseId,
    op,
    input_hash: `${op}${position}`,
    result_json:
      op === "start" ? JSON.stringify({ workflow: "w", request: `r${attempt}`, previous: null }) : "{}",
    replayed,
    created_at: new Date(T0 + clock).toISOString(),
  };
}

const rows: PhaseRow[] = [1, 2, 3, 4].map((n) =>
  phaseRow("s", n, new Date(T0).toISOString(), { id: `s-p0${n}`, name: `phase-${n}` }),
);

describe("buildJournal", () => {
  it("is empty without steps", () => {
    expect(buildJournal([], rows)).toMatchObject({ attempt: 0, start: null });
    expect(buildJournal([], rows).phases.size).toBe(0);
  });

  it("holds the completed phases of the newest attempt that ran anything live, with their steps", () => {
    const steps = [
      step(1, 0, "start"),
      step(1, 1, "call"),
      step(1, 1, "phase"),
      step(1, 2, "call"),
      // Attempt 2 replayed phase 1, then ran phase 2 live and completed it.
      step(2, 0, "start"),
      step(2, 1, "call", 1),
      step(2, 1, "phase", 1),
      step(2, 2, "call", 0, "s-p03"),
      step(2, 2, "phase", 0, "s-p03"),
    ];
    const journal = buildJournal(steps, [...rows]);
    expect(journal.attempt).toBe(2);
    expect(journal.start?.request).toBe("r2");
    expect([...journal.phases.keys()]).toEqual([1, 2]);
    expect(journal.phases.get(2)?.row.id).toBe("s-p03");
    expect(journal.phases.get(2)?.steps.map((s) => s.op)).toEqual(["call"]);
  });

  it("keeps the older journal when a later attempt only replayed (it crashed while replaying)", () => {
    const steps = [
      step(1, 0, "start"),
      step(1, 1, "call"),
      step(1, 1, "phase"),
      step(1, 2, "call"),
      step(1, 2, "phase"),
      step(2, 0, "start"),
      step(2, 1, "call", 1),
      step(2, 1, "phase", 1),
    ];
    const journal = buildJournal(steps, rows);
    expect(journal.attempt).toBe(1);
    expect([...journal.phases.keys()]).toEqual([1, 2]);
  });

  it("drops the older journal after an attempt that diverged, even before it ran a step", () => {
    const steps = [
      step(1, 0, "start"),
      step(1, 1, "phase"),
      step(1, 2, "phase"),
      step(2, 0, "start"),
      step(2, 1, "phase", 1),
      { ...step(2, 2, "diverge"), key: "p2.phase-2.diverge" },
    ];
    const journal = buildJournal(steps, rows);
    expect(journal.attempt).toBe(2);
    expect([...journal.phases.keys()]).toEqual([1]);
  });

  it("ignores a phase step whose row is gone (a trace rebuilt without it)", () => {
    const journal = buildJournal([step(1, 0, "start"), step(1, 5, "phase", 0, "s-p09")], rows);
    expect(journal.phases.size).toBe(0);
  });
});
