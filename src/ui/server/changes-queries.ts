import { statSync } from "node:fs";
import path from "node:path";
import { runGit } from "../../code/run-git.js";
import type { SessionRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import type { FileText, PhaseDiff, RunChanges, RunCommit } from "./api-types.js";
import { numstatArgs, numstatFiles, recordedFiles } from "./review/commit-files.js";
import { boundText, fileInside, readSessionFile, sessionRoot } from "./session-files.js";

/** Most bytes git may print for one diff; past that only a note is sent (the text limit is smaller). */
export const GIT_OUTPUT_LIMIT = 16 * 1024 * 1024;

// A ref or commit as the trace records them: no option-like leading dash, no range, no spaces.
export const SAFE_REF = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;
const SHA = /^[0-9a-f]{7,40}$/;
// Diffs of files and of commits: never an external diff or textconv program configured in the repo.
export const DIFF_FLAGS = ["--no-color", "--no-ext-diff", "--no-textconv"];

interface CommitEventRow {
  phase_id: string | null;
  payload: string;
  started_at: string;
}

interface ChangesEnvelopeRow {
  id: string;
  phase_id: string;
  envelope_json: string | null;
}

function parse(text: string | null): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? "");
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A commit's files as git sees them (an empty list when git cannot tell). */
async function gitFiles(repo: string, sha: string): Promise<string[]> {
  try {
    return numstatFiles(await runGit(repo, numstatArgs(sha), { maxBuffer: GIT_OUTPUT_LIMIT }));
  } catch {
    return [];
  }
}

/**
 * The commits the run's code phases made, by time, from their `committed <sha>: …` log events; their
 * files as recorded, else (a trace that recorded none) from git in `repo` when given.
 */
export async function readCommits(
  db: TraceSql,
  adwId: string,
  repo: string | null = null,
): Promise<RunCommit[]> {
  const rows = await db.all<CommitEventRow>(
    `SELECT phase_id, payload, started_at FROM events
     WHERE adw_id = ? AND type = 'log' AND name LIKE 'committed %' ORDER BY started_at, id`,
    [adwId],
  );
  const commits: RunCommit[] = [];
  for (const row of rows) {
    const payload = parse(row.payload);
    const sha = typeof payload.commit === "string" ? payload.commit : "";
    if (!SHA.test(sha)) continue;
    const message = typeof payload.message === "string" ? payload.message : "";
    commits.push({
      sha,
      subject: message.split("\n")[0] ?? "",
      message,
      files: recordedFiles(payload.files) ?? (repo === null ? [] : await gitFiles(repo, sha)),
      phase_id: row.phase_id,
      at: row.started_at,
    });
  }
  return commits;
}

/** The diffs the run's code phases saved (their valid ChangesOutput envelopes), by time. */
export async function readPhaseDiffs(db: TraceSql, adwId: string, sessionsDir: string): Promise<PhaseDiff[]> {
  const rows = await db.all<ChangesEnvelopeRow>(
    `SELECT id, phase_id, envelope_json FROM envelopes
     WHERE adw_id = ? AND output_type = 'ChangesOutput' AND valid = 1 ORDER BY created_at, id`,
    [adwId],
  );
  const root = sessionRoot(sessionsDir, adwId);
  return rows.map((row) => {
    const envelope = parse(row.envelope_json);
    const diffPath = typeof envelope.diff_path === "string" ? envelope.diff_path : "";
    const real = root === null || diffPath === "" ? null : fileInside(root, diffPath, "changes");
    const files = Array.isArray(envelope.files) ? envelope.files : [];
    return {
      phase_id: row.phase_id,
      envelope_id: row.id,
      file: real === null || root === null ? null : path.relative(root, real),
      files: files.map((f) => {
        const file = (typeof f === "object" && f !== null ? f : {}) as Record<string, unknown>;
        return { path: String(file.path ?? ""), change: String(file.change ?? "") };
      }),
      diff_stat: typeof envelope.diff_stat === "string" ? envelope.diff_stat : "",
      summary: typeof envelope.summary === "string" ? envelope.summary : "",
    };
  });
}

/** The run's commits and saved diffs, and whether a total diff exists. */
export async function readRunChanges(
  db: TraceSql,
  session: SessionRow,
  sessionsDir: string,
): Promise<RunChanges> {
  return {
    branch: session.branch,
    base_ref: session.base_ref,
    total: session.base_ref !== null && session.branch !== null,
    commits: await readCommits(db, session.adw_id, repoOf(session)),
    phase_diffs: await readPhaseDiffs(db, session.adw_id, sessionsDir),
  };
}

/** The repository to run git in: the operator's checkout, else where the run worked; must exist. */
export function repoOf(session: SessionRow): string | null {
  for (const dir of [session.checkout, session.cwd, session.worktree]) {
    if (dir === null || dir === "" || !path.isAbsolute(dir)) continue;
    try {
      if (statSync(dir).isDirectory()) return dir;
    } catch {
      // Removed (a cleaned worktree): try the next one.
    }
  }
  return null;
}

/** Git's output in the run's repository as a FileText; a failure (or no repository) is its `note`. */
export async function gitText(session: SessionRow, args: string[], source: string): Promise<FileText> {
  const repo = repoOf(session);
  if (repo === null) {
    return { text: "", cut: 0, total_chars: 0, source, note: "the run's repository is gone" };
  }
  try {
    const out = await runGit(repo, args, { maxBuffer: GIT_OUTPUT_LIMIT });
    return boundText(redactSecrets(out), source);
  } catch (error) {
    const message = (error as Error).message;
    const note = /maxBuffer/i.test(message)
      ? `the diff is larger than ${GIT_OUTPUT_LIMIT / 1024 / 1024} MiB: read it with ${source}`
      : redactSecrets(message);
    return { text: "", cut: 0, total_chars: 0, source, note };
  }
}

/**
 * The run's total diff, `git diff <base_ref>...<branch>` in its repository, secrets redacted and cut
 * to the text limit; null when the run had no branch of its own. Never rejects: a git failure (the
 * branch deleted, the repository gone) is the answer's `note`.
 */
export async function totalDiff(session: SessionRow): Promise<FileText | null> {
  const { base_ref: base, branch } = session;
  if (base === null || branch === null || !SAFE_REF.test(base) || !SAFE_REF.test(branch)) return null;
  if (base.includes("..") || branch.includes("..")) return null;
  const range = `${base}...${branch}`;
  return gitText(session, ["diff", ...DIFF_FLAGS, range, "--"], `git diff ${range}`);
}

/**
 * `git show <sha>` of a commit the run made (the sha must be one of its logged commits), secrets
 * redacted and cut; null for any other sha. Never rejects (a git failure is the `note`).
 */
export async function commitDiff(db: TraceSql, session: SessionRow, sha: string): Promise<FileText | null> {
  if (!SHA.test(sha)) return null;
  const commit = (await readCommits(db, session.adw_id)).find((c) => c.sha === sha || c.sha.startsWith(sha));
  if (commit === undefined) return null;
  return gitText(
    session,
    [
      "show",
      ...DIFF_FLAGS,
      "--format=commit %H%nAuthor: %an <%ae>%nDate:   %aI%n%n%w(0,4,4)%B",
      commit.sha,
      "--",
    ],
    `git show ${commit.sha.slice(0, 12)}`,
  );
}

/**
 * The diff a phase saved, read from inside the session directory (a path that leads out of it, a
 * symlink included, is never read), secrets redacted and cut; null when the phase saved none there.
 */
export async function savedPhaseDiff(
  db: TraceSql,
  adwId: string,
  phaseId: string,
  sessionsDir: string,
): Promise<FileText | null> {
  const root = sessionRoot(sessionsDir, adwId);
  if (root === null) return null;
  const diff = (await readPhaseDiffs(db, adwId, sessionsDir)).filter((d) => d.phase_id === phaseId && d.file);
  const last = diff.at(-1);
  if (last?.file == null) return null;
  const real = fileInside(root, last.file);
  return real === null ? null : readSessionFile(root, real);
}
