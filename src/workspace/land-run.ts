/**
 * `sssf merge <adw_id>` and the UI's Merge: lands an accepted run's branch in its base branch through
 * `fastForward`, the code path `sssf run --merge` takes (a merge commit, when the base moved and the
 * config asks for one, is made first with `git commit-tree` and then fast-forwarded to), and records
 * a `run_merged` event in the session's trace.
 */
import { existsSync } from "node:fs";
import { runGit } from "../code/run-git.js";
import type { MergeStrategy } from "../config/config-types.js";
import { SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { sessionDirs } from "../session/session-dirs.js";
import type { SessionRow, TraceRecord } from "../trace/events.js";
import { EventsFile } from "../trace/events-file.js";
import { redactRecord } from "../trace/redact-record.js";
import { eventRow } from "../trace/rows.js";
import type { TraceSql } from "../trace/store.js";
import { getSession } from "../trace/store-queries.js";
import { lookAtMerge, type MergeLook } from "./merge-look.js";
import { resolveCommit } from "./worktree.js";
import { fastForward } from "./worktree-merge.js";

/** Where a merge is asked for: the trace, the operator's checkout, the config's strategy. */
export interface LandContext {
  db: TraceSql;
  sessionsDir: string;
  checkout: string;
  strategy: MergeStrategy;
  /** `--into <branch>`. */
  into?: string | undefined;
}

/** What landed (wire-shaped: `--json` and the UI print it as it is). */
export interface LandResult extends MergeLook {
  merged: true;
  /** The base branch's commit after the merge. */
  head: string;
  /** The base branch's commit before. */
  from: string;
  /** A line saying what landed. */
  summary: string;
}

/** A refused merge: its message is the one refusal line; `look` is what was seen. Exit status 1. */
export class MergeRefusedError extends SssfError {
  readonly look: MergeLook;

  constructor(message: string, look: MergeLook) {
    super("merge_refused", message);
    this.name = "MergeRefusedError";
    this.look = look;
  }
}

/** The branch the run lands in by record: `--merge`'s, else the one it was started from (its worktree events); null in older sessions. */
export async function recordedInto(db: TraceSql, adwId: string): Promise<string | null> {
  const rows = await db.all<{ payload: string }>(
    "SELECT payload FROM events WHERE adw_id = ? AND type = 'log' AND name LIKE 'worktree %' ORDER BY started_at, id",
    [adwId],
  );
  // The latest `--merge` target wins; else the base branch the run was created from (a rejoin records none).
  let into: string | null = null;
  let started: string | null = null;
  for (const row of rows) {
    try {
      const payload = JSON.parse(row.payload) as { merge_into?: unknown; base_branch?: unknown };
      if (typeof payload.merge_into === "string" && payload.merge_into !== "") into = payload.merge_into;
      if (typeof payload.base_branch === "string" && payload.base_branch !== "")
        started ??= payload.base_branch;
    } catch {
      // A payload that is not JSON names no branch.
    }
  }
  return into ?? started;
}

/** The session's row; a UsageError naming the id when the trace has none. */
async function sessionOf(db: TraceSql, adwId: string): Promise<SessionRow> {
  const session = await getSession(db, adwId);
  if (session === undefined) throw new UsageError(`no session ${adwId} in the trace`, "<adw_id>");
  return session;
}

/** What merging session `adwId` would do, without doing it. Rejects with a UsageError for an unknown session. */
export async function previewMerge(context: LandContext, adwId: string): Promise<MergeLook> {
  const { tree: _tree, ...wire } = await lookAtSession(context, await sessionOf(context.db, adwId));
  return wire;
}

/** What merging `session` would do, as the CLI and the UI see it. */
async function lookAtSession(context: LandContext, session: SessionRow) {
  return lookAtMerge({
    checkout: context.checkout,
    session,
    strategy: context.strategy,
    into: context.into,
    recordedInto: await recordedInto(context.db, session.adw_id),
  });
}

/**
 * Lands session `adwId`'s branch. Rejects with a UsageError for an unknown session, an SssfError
 * (`merge_refused`, exit 1) whose message is the one refusal line, or a GitError when git fails.
 */
export async function landRun(context: LandContext, adwId: string): Promise<LandResult> {
  const session = await sessionOf(context.db, adwId);
  const look = await lookAtSession(context, session);
  const { tree, ...wire } = look;
  const { base, branch, base_tip: from, branch_tip: tip, checkout } = look;
  if (
    look.refusal !== null ||
    base === null ||
    branch === null ||
    from === null ||
    tip === null ||
    checkout === null
  )
    throw new MergeRefusedError(look.refusal ?? `session ${adwId} cannot be merged`, wire);
  let target: string | undefined;
  if (look.method === "merge-commit" && tree !== undefined) {
    // The user's identity (git config); no signing program runs (git-safety).
    const message = `Merge ${branch} into ${base}\n\nsssf run ${adwId} (${session.workflow})\n`;
    target = (
      await runGit(checkout, ["commit-tree", "--no-gpg-sign", tree, "-p", from, "-p", tip, "-F", "-"], {
        input: message,
      })
    ).trim();
  }
  // To the commit looked at, not wherever the branch points by now.
  const moved = await fastForward({ checkout, base, branch, target: target ?? tip });
  if (!moved.merged) {
    const line = `not merged: ${moved.reason}`;
    throw new MergeRefusedError(line, { ...wire, method: null, refusal: line });
  }
  const head = (await resolveCommit(checkout, `refs/heads/${base}`)) ?? moved.to ?? tip;
  const summary = `merged ${branch} into ${base} (${look.method}): ${look.commits.length} commit${look.commits.length === 1 ? "" : "s"}, ${look.files.length} file${look.files.length === 1 ? "" : "s"}; ${base} is now at ${head.slice(0, 12)}`;
  await recordMerged(
    context,
    session,
    {
      base,
      branch,
      from,
      to: head,
      method: look.method,
      commits: look.commits.map((commit) => commit.sha),
      files: look.files,
      shown: [summary],
    },
    summary,
  );
  return { ...wire, merged: true, head, from, summary };
}

/** Appends the `run_merged` event as a tracer would: `events.jsonl` first (when the session has its folder), then the store. */
async function recordMerged(
  context: LandContext,
  session: SessionRow,
  payload: Record<string, unknown>,
  name: string,
): Promise<void> {
  const record: TraceRecord = redactRecord({
    table: "events",
    row: eventRow(session.adw_id, { type: "run_merged", name, phaseId: null, ok: true, payload }),
  });
  const { root, eventsFile } = sessionDirs(context.sessionsDir, session.adw_id);
  if (existsSync(root)) {
    const file = new EventsFile(eventsFile);
    try {
      file.append([record]);
    } finally {
      file.close();
    }
  }
  await context.db.transaction((tx) => tx.upsert([record]));
}
