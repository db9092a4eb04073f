/**
 * What `sssf clean` keeps of a failed run's worktree before removing it: the uncommitted files the run
 * left there (the failed agent's own output) are the run's, so they are kept as a commit under
 * `refs/sssf/wip/<adw_id>` and as a patch in the run's session, and the worktree can go. Nothing
 * outside that worktree is read or written but the repository's objects, that ref and the patch file.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { takeWorkCheckpoint } from "../code/work-checkpoint.js";
import { sessionDirs } from "../session/session-dirs.js";
import type { SessionRow } from "../trace/events.js";
import { gitOrThrow } from "./worktree-git.js";
import { LINKED_DEPENDENCIES } from "./worktree-links.js";

/** `refs/sssf/wip/<adw_id>`: a failed run's uncommitted output, kept by `sssf clean`. */
export function wipRef(adwId: string): string {
  return `refs/sssf/wip/${adwId}`;
}

/** The patch file `sssf clean` writes in the session: the same output as `wipRef`, for `git apply`. */
export const WIP_PATCH = "uncommitted.patch";

/** Where a failed run's output went. */
export interface KeptOutput {
  ref: string;
  commit: string;
  /** The patch in the session folder; null when this machine has no session folder for the run. */
  patch: string | null;
}

/** True for a run that ended without being accepted: its worktree's uncommitted files are its own output. */
export function isFailedRun(session: SessionRow | undefined): session is SessionRow {
  return session !== undefined && (session.status === "fail" || session.status === "interrupted");
}

/**
 * Keeps the uncommitted output of the failed run `adwId` in `worktree`: every tracked and untracked
 * file that is not ignored (the linked dependency folders left out), as a commit on the worktree's
 * HEAD under `wipRef(adwId)` (an older one stays reachable as its second parent), and the diff from
 * HEAD as `<session>/uncommitted.patch`. Rejects with a GitError when git does.
 */
export async function keepFailedOutput(
  worktree: string,
  adwId: string,
  sessionsDir: string,
): Promise<KeptOutput> {
  const ref = wipRef(adwId);
  const message = `sssf clean: uncommitted output of failed run ${adwId}, kept when its worktree was removed\n`;
  const kept = await takeWorkCheckpoint(worktree, { ref, exclude: LINKED_DEPENDENCIES, message });
  const sessionDir = sessionDirs(sessionsDir, adwId).root;
  if (!existsSync(sessionDir)) return { ref, commit: kept.commit, patch: null };
  const diff = await gitOrThrow(worktree, ["diff", "--binary", "--no-renames", kept.head, kept.commit]);
  const patch = path.join(sessionDir, WIP_PATCH);
  writeFileSync(patch, diff);
  return { ref, commit: kept.commit, patch };
}
