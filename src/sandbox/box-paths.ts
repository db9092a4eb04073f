/**
 * Where the run's working tree and `context_handoff/` appear inside the box: paths that depend only on
 * the repository's name, so prompts carry no run-specific absolute path (a provider's prompt cache hits
 * across runs, and a run resumes on another machine with the same prompts).
 */

import path from "node:path";

export const BOX_ROOT = "/sssf";
export const BOX_CONTEXT_HANDOFF = `${BOX_ROOT}/context_handoff`;

/** A name safe as one path segment: the repository folder's name, other characters as `_`. */
export function boxRepoName(repoRoot: string): string {
  const name = path.basename(path.resolve(repoRoot)).replace(/[^A-Za-z0-9._-]/g, "_");
  return name === "" || name === "." || name === ".." ? "repo" : name;
}

/** The working tree's path inside the box for the repository at `repoRoot` (the operator's checkout). */
export function boxWorkPath(repoRoot: string): string {
  return `${BOX_ROOT}/work/${boxRepoName(repoRoot)}`;
}

const WORK_PREFIX = `${BOX_ROOT}/work/`;

/**
 * The host path of a path an agent wrote as it saw it inside the box: `/sssf/work/<name>/…` is in the
 * run's working tree, `/sssf/context_handoff/…` in the session's `context_handoff/`. Any other path is
 * returned as it is.
 */
export function hostPathOfBoxPath(file: string, workTree: string, contextHandoffDir: string): string {
  if (file === BOX_CONTEXT_HANDOFF || file.startsWith(`${BOX_CONTEXT_HANDOFF}/`))
    return path.join(contextHandoffDir, file.slice(BOX_CONTEXT_HANDOFF.length));
  if (!file.startsWith(WORK_PREFIX)) return file;
  const slash = file.indexOf("/", WORK_PREFIX.length);
  return slash === -1 ? workTree : path.join(workTree, file.slice(slash));
}

/** `value` with every string in it that is a box path replaced by its host path (tool-call arguments). */
export function hostPathsIn(value: unknown, workTree: string, contextHandoffDir: string, depth = 0): unknown {
  if (typeof value === "string")
    return value.startsWith(`${BOX_ROOT}/`) ? hostPathOfBoxPath(value, workTree, contextHandoffDir) : value;
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value))
    return value.map((item) => hostPathsIn(item, workTree, contextHandoffDir, depth + 1));
  const mapped: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    mapped[key] = hostPathsIn(item, workTree, contextHandoffDir, depth + 1);
  return mapped;
}
