/**
 * Traces of every failure kind the run list names, written the way the engine writes them: an invalid
 * envelope, gate violations, a budget overrun, an agent's failed send, an agent that declared
 * `status: "fail"`, SIGINT while an agent ran and SIGTERM between phases, a run whose sssf died, a
 * crash outside any phase and a rejected review.
 */
import type { TraceRecord } from "../../src/trace/events.js";
import type { RunOutcome } from "../../src/ui/server/review/review-types.js";
import { at, eventRow, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import { BASE, envelope } from "./feature-fixtures.js";

/** A session that failed in its agent phase 1 (`build`), with the rows `extra` adds. */
function failedRun(
  adwId: string,
  reason: string,
  extra: (phaseId: string) => TraceRecord[],
  status: "fail" | "interrupted" = "fail",
): TraceRecord[] {
  const phase = phaseRow(adwId, 1, at(BASE, 1000), { name: "build", status: "fail", error: reason });
  return [
    {
      table: "sessions",
      row: sessionRow(adwId, at(BASE, 0), { status, accepted: 0, reason, ended_at: at(BASE, 9000) }),
    },
    { table: "phases", row: phase },
    ...extra(phase.id),
  ];
}

const errorEvent = (
  adwId: string,
  phaseId: string | null,
  payload: Record<string, unknown>,
): TraceRecord => ({
  table: "events",
  row: eventRow(adwId, `${adwId}-err`, at(BASE, 5000), {
    type: "error",
    name: String(payload.error ?? "failed"),
    phase_id: phaseId,
    ok: 0,
    payload: JSON.stringify(payload),
  }),
});

const agentEnd = (adwId: string, phaseId: string, errorKind: string): TraceRecord => ({
  table: "events",
  row: eventRow(adwId, `${adwId}-end`, at(BASE, 4000), {
    type: "agent_end",
    name: `builder failed: ${errorKind}`,
    phase_id: phaseId,
    agent: "builder",
    ok: 0,
    payload: JSON.stringify({ error_kind: errorKind, error: "stopped", exit_code: null }),
  }),
});

const attempt = (
  adwId: string,
  phaseId: string,
  valid: 0 | 1,
  status: string | null,
  n = 1,
): TraceRecord => ({
  table: "envelopes",
  row: {
    ...envelope(adwId, `${adwId}-env${n}`, phaseId, "BuildOutput", { status }, at(BASE, 3000 + n)),
    valid,
    status,
    envelope_json: valid ? JSON.stringify({ status }) : null,
    accepted: 0,
  },
});

const phaseFailed = (reason: string, more: Record<string, unknown> = {}) => ({
  error: reason,
  code: "phase_failed",
  shown: [],
  ...more,
});

/** Each run, its records and the outcome it must get (`detail` is always the session's reason). */
export const RUNS: [string, TraceRecord[], Omit<RunOutcome, "adw_id" | "detail"> & { detail?: string }][] = [
  [
    "out00001",
    failedRun("out00001", "phase build failed: no valid envelope after 2 correction(s)", (p) => [
      attempt("out00001", p, 0, null, 1),
      attempt("out00001", p, 0, null, 2),
      errorEvent("out00001", p, phaseFailed("no valid envelope after 2 correction(s)")),
    ]),
    { kind: "invalid_envelope", label: "invalid envelope", phase_id: "ph_out00001_1" },
  ],
  [
    "out00002",
    failedRun("out00002", "phase build failed: gate violations after 2 correction(s)", (p) => [
      attempt("out00002", p, 1, "success"),
      {
        table: "gate_results",
        row: {
          id: "out00002-gate",
          adw_id: "out00002",
          phase_id: p,
          envelope_id: "out00002-env1",
          gate: "diff-matches-claims",
          ok: 0,
          checks: "[]",
          violations: '["src/a.ts changed but not claimed"]',
          created_at: at(BASE, 3500),
        },
      },
      errorEvent("out00002", p, phaseFailed("gate violations after 2 correction(s)")),
    ]),
    { kind: "gate_violation", label: "gate violation (diff-matches-claims)", phase_id: "ph_out00002_1" },
  ],
  [
    "out00003",
    failedRun("out00003", "phase build failed: run cost budget of $1 spent", (p) => [
      errorEvent(
        "out00003",
        p,
        phaseFailed("run cost budget of $1 spent", { budget: "run", measure: "cost", limit: 1, spent: 1.2 }),
      ),
    ]),
    { kind: "budget", label: "budget exceeded (run cost)", phase_id: "ph_out00003_1" },
  ],
  [
    "out00004",
    failedRun("out00004", "phase build failed: agent builder call failed (idle_timeout)", (p) => [
      agentEnd("out00004", p, "idle_timeout"),
      attempt("out00004", p, 0, null),
      errorEvent("out00004", p, phaseFailed("agent builder call failed (idle_timeout)")),
    ]),
    { kind: "agent_failed", label: "agent failed (idle_timeout)", phase_id: "ph_out00004_1" },
  ],
  [
    "out00005",
    failedRun("out00005", "phase build failed: builder reported status fail", (p) => [
      attempt("out00005", p, 1, "fail"),
      errorEvent("out00005", p, phaseFailed("builder reported status fail")),
    ]),
    { kind: "agent_declared_fail", label: "agent reported failure", phase_id: "ph_out00005_1" },
  ],
  [
    "out00006",
    failedRun("out00006", "interrupted by SIGINT", (p) => [
      agentEnd("out00006", p, "aborted"),
      errorEvent("out00006", p, phaseFailed("agent builder call failed (aborted)")),
    ]),
    { kind: "interrupted", label: "interrupted (SIGINT)", phase_id: "ph_out00006_1" },
  ],
  [
    "out00007",
    failedRun("out00007", "interrupted by SIGTERM", () => [
      errorEvent("out00007", null, { error: "interrupted by SIGTERM", code: "interrupted", shown: [] }),
    ]),
    { kind: "interrupted", label: "interrupted (SIGTERM)", phase_id: null },
  ],
  [
    "out00008",
    failedRun(
      "out00008",
      "interrupted: sssf pid 4242 on host1 is gone; closed by sssf ui",
      () => [
        errorEvent("out00008", null, {
          error: "interrupted: sssf pid 4242 on host1 is gone; closed by sssf ui",
          code: "interrupted",
          closed_by: "sssf ui",
        }),
      ],
      "interrupted",
    ),
    { kind: "killed", label: "killed (sssf gone)", phase_id: null },
  ],
  [
    "out00009",
    failedRun("out00009", "TypeError: cannot read properties of undefined", () => [
      errorEvent("out00009", null, {
        error: "TypeError: cannot read properties of undefined",
        stack: "at x",
      }),
    ]),
    { kind: "crashed", label: "crashed", phase_id: null },
  ],
  [
    "out00010",
    [
      {
        table: "sessions",
        row: sessionRow("out00010", at(BASE, 0), {
          status: "fail",
          accepted: 0,
          reason: "not approved: tests missing",
          ended_at: at(BASE, 9000),
        }),
      },
      {
        table: "phases",
        row: phaseRow("out00010", 1, at(BASE, 1000), { name: "review", status: "success" }),
      },
      {
        table: "envelopes",
        row: envelope(
          "out00010",
          "out00010-review",
          "ph_out00010_1",
          "ReviewOutput",
          { status: "success", approved: false, blocking: ["tests missing"] },
          at(BASE, 2000),
        ),
      },
    ],
    { kind: "review_rejected", label: "review rejected", phase_id: "ph_out00010_1" },
  ],
];
