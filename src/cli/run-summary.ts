/**
 * `sssf run --json` and `sssf resume --json`: the one JSON object printed on stdout when the run ends
 * (docs/json-output.md lists every field). Built from the run's outcome, its trace and git; nothing
 * else is printed on stdout in that mode (progress goes to stderr).
 */

import type { RunOutcome } from "../engine/run-workflow.js";
import type { PhaseRow } from "../trace/events.js";
import { openTraceStore } from "../trace/open-store.js";
import type { TraceStore } from "../trace/store.js";
import { listEvents } from "../trace/store-queries.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { jsonTerminalSafe } from "../util/terminal-text.js";
import { branchCommitsSync } from "../workspace/worktree-dirty.js";

/** Tokens as the summary reports them, for the run and for each phase. */
export interface SummaryTokens {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** One phase of the run in the summary. */
export interface SummaryPhase {
  number: number;
  name: string;
  kind: string;
  owner: string;
  status: string;
  duration_ms: number | null;
  tokens: SummaryTokens;
  cost_usd: number;
  error: string | null;
  /** A resume answered it from the trace instead of running it. */
  replayed: boolean;
}

/** One of the run's commits. */
export interface SummaryCommit {
  sha: string;
  subject: string;
}

/** The whole `--json` object of `sssf run` and `sssf resume`. */
export interface RunSummary {
  adw_id: string;
  workflow: string;
  /** The session's status: `success`, `fail` (or `interrupted`). */
  status: string;
  accepted: boolean;
  reason: string;
  exit_code: number;
  phases: SummaryPhase[];
  tokens: SummaryTokens;
  cost_usd: number;
  duration_ms: number | null;
  branch: string | null;
  worktree: string | null;
  base_ref: string | null;
  commits: SummaryCommit[];
  session_dir: string;
}

/** The keys of {@link RunSummary}, in the order they are printed: the documented, stable shape. */
export const RUN_SUMMARY_KEYS = [
  "adw_id",
  "workflow",
  "status",
  "accepted",
  "reason",
  "exit_code",
  "phases",
  "tokens",
  "cost_usd",
  "duration_ms",
  "branch",
  "worktree",
  "base_ref",
  "commits",
  "session_dir",
] as const satisfies readonly (keyof RunSummary)[];

/** The keys of each {@link SummaryPhase}, in order. */
export const SUMMARY_PHASE_KEYS = [
  "number",
  "name",
  "kind",
  "owner",
  "status",
  "duration_ms",
  "tokens",
  "cost_usd",
  "error",
  "replayed",
] as const satisfies readonly (keyof SummaryPhase)[];

const tokensOf = (row: {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}): SummaryTokens => ({
  input: row.input_tokens,
  output: row.output_tokens,
  cache_read: row.cache_read_tokens,
  cache_write: row.cache_write_tokens,
});

function summaryPhase(phase: PhaseRow): SummaryPhase {
  return {
    number: phase.number,
    name: phase.name,
    kind: phase.kind,
    owner: phase.owner,
    status: phase.status,
    duration_ms: phase.duration_ms,
    tokens: tokensOf(phase),
    cost_usd: phase.cost_usd,
    error: phase.error === null ? null : redactSecrets(phase.error),
    replayed: phase.replayed_at !== null,
  };
}

/** The commits code phases made in place, from their `committed <sha>` events in the trace, oldest first. */
async function tracedCommits(dbPath: string, adwId: string): Promise<SummaryCommit[]> {
  let db: TraceStore | undefined;
  try {
    db = await openTraceStore(dbPath, { readonly: true });
    return (await listEvents(db, adwId, { type: "log" })).flatMap((event) => {
      if (!event.name.startsWith("committed ") || event.ok !== 1) return [];
      const payload = JSON.parse(event.payload) as { commit?: unknown; message?: unknown };
      if (typeof payload.commit !== "string") return [];
      const message = typeof payload.message === "string" ? payload.message : "";
      return [{ sha: payload.commit, subject: message.split("\n")[0] ?? "" }];
    });
  } catch {
    return [];
  } finally {
    await db?.close();
  }
}

/**
 * The run's commits: its branch's beyond the base when it had one (as the run's end found them, else
 * asked of git), else those it made in place.
 */
async function runCommits(outcome: RunOutcome, dbPath: string, cwd: string): Promise<SummaryCommit[]> {
  const { session, commits } = outcome;
  // What the run's end saw of its branch: nothing left to ask git.
  if (commits === "missing") return [];
  if (commits !== null) return commits.log;
  if (session.branch !== null && session.base_ref !== null) {
    const asked = branchCommitsSync(session.checkout ?? cwd, session.base_ref, session.branch);
    return asked === null || asked === "missing" ? [] : asked.log;
  }
  return tracedCommits(dbPath, session.adw_id);
}

/**
 * The summary of a finished run: its session row (this attempt's totals live in the phases), the
 * phases this attempt ran or replayed, its commits. `exitCode` is what the command exits with (a
 * signal's 130/143/129 included). Strings from agents (reason, errors) are redacted.
 */
export async function buildRunSummary(
  outcome: RunOutcome,
  context: { exitCode: number; dbPath: string; cwd: string },
): Promise<RunSummary> {
  const { session } = outcome;
  return {
    adw_id: outcome.adwId,
    workflow: session.workflow,
    status: session.status,
    accepted: outcome.accepted,
    reason: redactSecrets(outcome.reason),
    exit_code: context.exitCode,
    phases: outcome.phases.map(summaryPhase),
    tokens: tokensOf(session),
    cost_usd: session.cost_usd,
    duration_ms: session.duration_ms,
    branch: session.branch,
    worktree: session.worktree,
    base_ref: session.base_ref,
    commits: await runCommits(outcome, context.dbPath, context.cwd),
    session_dir: outcome.sessionDir,
  };
}

/** Prints the summary on stdout as one line of JSON, safe on a terminal (`jsonTerminalSafe`). */
export function printRunSummary(summary: RunSummary, out: NodeJS.WritableStream = process.stdout): void {
  out.write(`${jsonTerminalSafe(JSON.stringify(summary))}\n`);
}
