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
