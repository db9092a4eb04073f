/**
 * A best-of-3 build traced the way the best-of engine writes it (one `attempt` event per attempt, then
 * one `best_of` event, each attempt's diff saved under `<session>/attempts/`), plus a model ladder's
 * `escalation`; and a second phase whose attempts name diffs that must not be served (a `..` escape, an
 * absolute path, a link out of the session folder, a missing file, a folder).
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TraceRecord } from "../../src/trace/events.js";
import { at, eventRow, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import { BASE } from "./feature-fixtures.js";
import type { TraceWorld } from "./ui-fixtures.js";

export const BEST = "best0001";
export const BEST_PHASE = `ph_${BEST}_1`;
export const HOSTILE_PHASE = `ph_${BEST}_2`;
export const NONE = "best0002";
export const NONE_PHASE = `ph_${NONE}_1`;

export const WINNER_REASON = "attempt 2 passed every gate and the suite with the fewest changed lines (4)";
export const LOSER_VIOLATION = "src/app.ts: the build deleted a test (test/app.test.ts)";

const diff = (file: string, line: string) =>
  `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-old\n+${line}\n`;

/** The payload the best-of engine writes for one attempt (docs/trace.md). */
export function attemptPayload(
  k: number,
  of: number,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return {
    attempt: k,
    of,
    mode: "best",
    status: "passed",
    winner: false,
    reason: "",
    changed_lines: 0,
    files: [],
    cost_usd: 0,
    input_tokens: 0,
    output_tokens: 0,
    agent_session_id: `builder-a${k}`,
    envelope_ids: [`env-${k}`],
    gates: [],
    check: null,
    diff: `attempts/01-build-${k}.diff`,
    ...fields,
  };
}

function attemptEvent(
  adwId: string,
  phaseId: string,
  k: number,
  of: number,
  fields: Record<string, unknown>,
) {
  const payload = attemptPayload(k, of, fields);
  return {
    table: "events",
    row: eventRow(adwId, `${phaseId}-attempt-${k}`, at(BASE, 1000 + k), {
      phase_id: phaseId,
      type: "attempt",
      name: `attempt ${k} of ${of}`,
      agent: "builder",
      ok: payload.status === "passed" ? 1 : 0,
      ended_at: at(BASE, 6000 + k * 1000),
      duration_ms: 5000 + k * 1000,
      payload: JSON.stringify(payload),
    }),
  } satisfies TraceRecord;
}

function saveDiff(world: TraceWorld, adwId: string, name: string, text: string): void {
  const dir = path.join(world.sessionsDir, adwId, "attempts");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), text);
}

/** Writes both runs and their session folders; returns the file a link points at from inside. */
export function seedBestOf(world: TraceWorld): { outside: string } {
  const session = (adwId: string, status: "success" | "fail") =>
    sessionRow(adwId, at(BASE, 0), { workflow: "build", status, ended_at: at(BASE, 20_000) });
  const phase = (adwId: string, n: number, status: "success" | "fail") =>
    phaseRow(adwId, n, at(BASE, 1000), { name: "build", status, ended_at: at(BASE, 19_000) });
  const gates = (ok: boolean, violations: string[] = []) => [
    { gate: "changes", ok: true, violations: [] },
    { gate: "tests_kept", ok, violations },
  ];
  const records: TraceRecord[] = [
    { table: "sessions", row: session(BEST, "success") },
    { table: "phases", row: phase(BEST, 1, "success") },
    { table: "phases", row: phase(BEST, 2, "fail") },
    {
      table: "events",
      row: eventRow(BEST, `${BEST}-climb`, at(BASE, 1500), {
        phase_id: BEST_PHASE,
        type: "escalation",
        name: "escalated to fake/strong",
        agent: "builder",
        payload: JSON.stringify({
          from: "fake/cheap",
          to: "fake/strong",
          rung: 1,
          reason: "gate violations after 2 correction(s): tests_kept",
          first_attempt: 3,
        }),
      }),
    },
    attemptEvent(BEST, BEST_PHASE, 1, 3, {
      status: "failed",
      reason: "gates failed: tests_kept",
      changed_lines: 2,
      files: ["src/app.ts"],
      cost_usd: 0.0125,
      input_tokens: 1200,
      output_tokens: 300,
      gates: gates(false, [LOSER_VIOLATION]),
      check: null,
    }),
    attemptEvent(BEST, BEST_PHASE, 2, 3, {
      winner: true,
      reason: WINNER_REASON,
      changed_lines: 4,
      files: ["src/app.ts", "src/util.ts"],
      cost_usd: 0.02,
      input_tokens: 2400,
      output_tokens: 500,
      gates: gates(true),
      check: { ok: true, summary: "test: 12 passed" },
    }),
    attemptEvent(BEST, BEST_PHASE, 3, 3, {
      reason: "passed, but changed 9 lines (attempt 2 changed 4)",
      changed_lines: 9,
      files: ["src/app.ts", "src/util.ts", "src/more.ts"],
      cost_usd: 0.03,
      input_tokens: 3000,
      output_tokens: 800,
      gates: gates(true),
      check: { ok: false, summary: "test: 1 failed" },
    }),
    {
      table: "events",
      row: eventRow(BEST, `${BEST}-choice`, at(BASE, 18_000), {
        phase_id: BEST_PHASE,
        type: "best_of",
        name: "winner attempt 2",
        agent: "builder",
        ok: 1,
        payload: JSON.stringify({ attempts: 3, mode: "best", winner: 2, reason: WINNER_REASON }),
      }),
    },
    // The phase whose diffs name what must never be served.
    ...[
      "../../etc/passwd",
      "/etc/passwd",
      "attempts/link-out.diff",
      "attempts/gone.diff",
      "attempts",
      "attempts/../../best0002/attempts/01-build-1.diff",
    ].map((file, i) => attemptEvent(BEST, HOSTILE_PHASE, i + 1, 6, { status: "failed", diff: file })),
    // A run where no attempt passed.
    { table: "sessions", row: session(NONE, "fail") },
    { table: "phases", row: phase(NONE, 1, "fail") },
    ...[1, 2].map((k) =>
      attemptEvent(NONE, NONE_PHASE, k, 2, {
        mode: "first",
        status: "failed",
        reason: `gates failed: tests_kept (attempt ${k})`,
        gates: gates(false, [`violation of attempt ${k}`]),
      }),
    ),
    {
      table: "events",
      row: eventRow(NONE, `${NONE}-choice`, at(BASE, 18_000), {
        phase_id: NONE_PHASE,
        type: "best_of",
        name: "no attempt passed",
        agent: "builder",
        ok: 0,
        payload: JSON.stringify({
          attempts: 2,
          mode: "first",
          winner: null,
          reason: "no attempt passed its gates",
        }),
      }),
    },
  ];
  world.write(...records);
  saveDiff(world, BEST, "01-build-1.diff", diff("src/app.ts", "attempt one"));
  saveDiff(
    world,
    BEST,
    "01-build-2.diff",
    diff("src/app.ts", "attempt two") + diff("src/util.ts", "two more"),
  );
  // Attempt 3's diff is missing: the view says so instead of failing.
  saveDiff(world, NONE, "01-build-1.diff", diff("src/app.ts", "other run"));
  const outside = path.join(world.dir, "secret.txt");
  writeFileSync(outside, "not a diff of this session\n");
  symlinkSync(outside, path.join(world.sessionsDir, BEST, "attempts", "link-out.diff"));
  return { outside };
}
