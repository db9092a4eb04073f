/** Where a run works and on which branch: the worktree's folder and the run branch's names, old and new. */
import path from "node:path";

/** `<data_dir>/.worktrees/<adw_id>`: a dot folder, so glob-based tools in the checkout skip it. */
export function worktreePath(dataDir: string, adwId: string): string {
  return path.join(dataDir, ".worktrees", adwId);
}

/**
 * A workflow's name as one component of a branch name: only ASCII letters, digits, ".", "_" and "-"
 * (anything else becomes "-"), no "..", no leading or trailing "." or "-", no ".lock" ending, at most
 * 40 characters; "workflow" when nothing is left. Always a valid `git check-ref-format` component.
 */
export function workflowRefName(workflow: string): string {
  let name = workflow
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/-{2,}/g, "-");
  const trim = (text: string) =>
    text
      .replace(/^[.-]+/, "")
      .replace(/(\.lock)+$/i, "")
      .replace(/[.-]+$/, "");
  name = trim(trim(name).slice(0, 40));
  return name === "" ? "workflow" : name;
}

/** The branch of a new run: `sssf/<workflow>/<adw_id>`, the workflow's name made ref-safe (`workflowRefName`). */
export function runBranch(workflow: string, adwId: string): string {
  return `sssf/${workflowRefName(workflow)}/${adwId}`;
}

/** The branch sessions recorded before branches named their workflow: `sssf/<adw_id>` (rows without a branch column). */
export function legacyRunBranch(adwId: string): string {
  return `sssf/${adwId}`;
}

/**
 * The ref patterns of every local branch of run `adwId`, whatever workflow made it: `sssf/<adw_id>`
 * (its first character bracketed, so git takes the pattern as one name, not a folder) and
 * `sssf/<any>/<adw_id>` (the glob's star also spans folders: `runBranchesIn` keeps one level).
 */
export function runBranchGlobs(adwId: string): string[] {
  const exact = `[${adwId.slice(0, 1)}]${adwId.slice(1)}`;
  return [`refs/heads/sssf/${exact}`, `refs/heads/sssf/*/${adwId}`];
}

/** The branches of run `adwId` among full ref names: `sssf/<adw_id>` and `sssf/<any>/<adw_id>`. */
export function runBranchesIn(refs: readonly string[], adwId: string): string[] {
  return refs
    .filter(
      (ref) =>
        ref === `refs/heads/sssf/${adwId}` ||
        (ref.endsWith(`/${adwId}`) && /^refs\/heads\/sssf\/[^/]+\/[^/]+$/.test(ref)),
    )
    .map((ref) => ref.slice("refs/heads/".length));
}
