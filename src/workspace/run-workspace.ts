import { mkdirSync } from "node:fs";
import path from "node:path";
import { addedWorktreeFacts, rememberRepoFacts, repoFacts } from "../code/git-facts.js";
import type { SssfConfig } from "../config/config-types.js";
import { engineOwnedPrefixes } from "../config/owned-prefixes.js";
import { SssfError } from "../errors/sssf-error.js";
import type { RunReporter } from "../session/reporter.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { SessionRow } from "../trace/events.js";
import { withoutInitWritten } from "./init-written-changes.js";
import type { WorkspacePlan } from "./run-workspace-plan.js";
import { describeCarried, describeLeftOut } from "./workspace-lines.js";
import {
  addWorktree,
  attachWorktree,
  type GitRepo,
  pruneWorktrees,
  removeWorktree,
  resolveCommit,
} from "./worktree.js";
import {
  type CarriedChanges,
  type CheckoutChanges,
  carryChanges,
  checkoutChanges,
  deleteBranchAt,
} from "./worktree-dirty.js";
import { linkDependencies } from "./worktree-links.js";

export { legacyRunBranch, runBranch, workflowRefName, worktreePath } from "./run-branch.js";
export { planWorkspace, type WorkspacePlan, type WorkspaceRequest } from "./run-workspace-plan.js";

/** Where a run works, once its worktree exists. */
export interface RunWorkspace {
  mode: "worktree" | "in-place";
  /** What opening did: `created`, `reused` or `recreated` a worktree, or nothing (`in-place`). */
  action: "in-place" | "created" | "reused" | "recreated";
  /** The run's root: the worktree (at the checkout's sub-folder when run from one), or the checkout. */
  root: string;
  /** The operator's checkout the run was started from. */
  checkout: string;
  worktree: string | null;
  branch: string | null;
  baseRef: string | null;
  /** The local branch `--merge` fast-forwards, or null. */
  mergeInto: string | null;
  /** A new run's base branch (traced as `base_branch` for `sssf merge`), or null. */
  baseBranch?: string | null;
  /** Absolute paths of dependency folders linked into the worktree (never the run's changes). */
  linked: string[];
  /** Why the run is in place although nobody asked; null otherwise. */
  notice: string | null;
  /** Milliseconds spent creating or re-adding the worktree (0 otherwise). */
  openMs: number;
  /** A new worktree's checkout: its uncommitted changes when the run started (null otherwise, or unreadable). */
  dirty: CheckoutChanges | null;
  /** What `--carry-dirty` brought in as the carry commit; null without it or when nothing differed. */
  carried: CarriedChanges | null;
  /** `--carry-dirty` was asked for. */
  carryDirty: boolean;
  /** sssf's own paths in the checkout, relative to its top level (never the operator's changes). */
  ownPaths: string[];
}

/**
 * Makes a plan real: adds the worktree on its new branch (`create`), re-adds it from its branch
 * (`recreate`) or takes it as it is (`reuse`), then links the checkout's ignored dependency folders.
 * In place it creates nothing. Rejects with a GitError when git refuses.
 */
export async function openWorkspace(plan: WorkspacePlan): Promise<RunWorkspace> {
  const base = {
    checkout: plan.checkout,
    worktree: plan.worktree,
    branch: plan.branch,
    baseRef: plan.baseRef,
    mergeInto: plan.mergeInto,
    baseBranch: plan.baseBranch ?? null,
    notice: plan.notice,
    carryDirty: plan.carryDirty,
    ownPaths: plan.ownPaths,
  };
  const { git, worktree, branch } = plan;
  if (plan.action === "in-place" || git === null || worktree === null || branch === null) {
    const quiet = { dirty: null, carried: null };
    return {
      mode: "in-place",
      action: "in-place",
      root: plan.checkout,
      linked: [],
      openMs: 0,
      ...quiet,
      ...base,
    };
  }
  const started = performance.now();
  let dirty: CheckoutChanges | null = null;
  let carried: CarriedChanges | null = null;
  // Run from a sub-folder of the checkout: work in the same sub-folder of the worktree.
  const root = git.prefix === "" ? worktree : path.join(worktree, git.prefix.replace(/\/$/, ""));
  if (plan.action === "create") {
    const baseRef = plan.baseRef;
    if (baseRef === null) throw new SssfError("internal", "a new worktree needs a base commit");
    if (plan.prune) await pruneWorktrees(git);
    // Only to tell the operator, it reads the checkout while git adds the worktree (nothing it lists
    // changes there). Without --carry-dirty a checkout git cannot read does not stop the run.
    // `sssf init`'s own files not committed yet are no work of the operator's the run lacks.
    const looking = plan.carryDirty
      ? null
      : checkoutChanges(git, plan.ownPaths)
          .then((changes) => withoutInitWritten(git, changes))
          .catch(() => null);
    await addWorktree(git, worktree, branch, baseRef);
    if (plan.carryDirty) {
      try {
        dirty = await checkoutChanges(git, plan.ownPaths);
        const about = { adwId: path.basename(worktree), checkout: git.topLevel };
        if (dirty.files.length > 0) carried = await carryChanges(git, worktree, baseRef, dirty, about);
      } catch (error) {
        // The run never started: leave no half-carried worktree or branch behind.
        await discardWorktree(git, worktree, branch);
        throw error;
      }
    } else {
      mkdirSync(root, { recursive: true });
      // The run's first boundary checkpoint asks where the root sits in git: known from the checkout's
      // facts and the worktree's .git file, else asked now, meanwhile.
      const main = await repoFacts(git.topLevel);
      const added = main === null ? null : addedWorktreeFacts(worktree, git.prefix, main);
      if (added === null) void repoFacts(root);
      else rememberRepoFacts(root, added);
      dirty = await looking;
    }
  } else if (plan.action === "recreate") {
    await attachWorktree(git, worktree, branch);
  }
  const linked = (await linkDependencies(git.topLevel, worktree)).map((name) => path.join(worktree, name));
  const openMs = plan.action === "reuse" ? 0 : Math.round(performance.now() - started);
  mkdirSync(root, { recursive: true });
  const action = plan.action === "create" ? "created" : plan.action === "recreate" ? "recreated" : "reused";
  return { mode: "worktree", action, root, linked, openMs, dirty, carried, ...base };
}

/**
 * Undoes `openWorkspace(plan)` for a `create` plan whose run never started (its worktree was added
 * while the trace opened, and the trace failed): the worktree and its new branch go. Never rejects.
 */
export async function discardNewWorkspace(
  plan: WorkspacePlan,
  opening: Promise<RunWorkspace>,
): Promise<void> {
  const opened = await opening.catch(() => null);
  if (opened?.action !== "created" || plan.git === null || plan.worktree === null || plan.branch === null)
    return;
  await discardWorktree(plan.git, plan.worktree, plan.branch);
}

/** Removes a worktree and the branch made for it moments ago. Never rejects: what git refuses stays. */
async function discardWorktree(repo: GitRepo, worktree: string, branch: string): Promise<void> {
  await removeWorktree(repo, worktree, true).catch(() => undefined);
  const tip = await resolveCommit(repo.topLevel, `refs/heads/${branch}`);
  if (tip !== null) await deleteBranchAt(repo.topLevel, branch, tip).catch(() => undefined);
}

/**
 * The commit the run root's HEAD is at because sssf just put it there: a worktree it created starts at
 * the base, or at the carry commit of `--carry-dirty`. Undefined for a reused or re-added worktree and
 * in place (HEAD is then whatever it is: read it).
 */
export function workspaceStart(workspace: RunWorkspace): string | undefined {
  if (workspace.mode !== "worktree" || workspace.action !== "created" || workspace.baseRef === null)
    return undefined;
  return workspace.carried?.commit ?? workspace.baseRef;
}

/** The operator's config re-rooted at the run's root: prompts, data dir, db and sessions stay absolute. */
export function workspaceConfig(config: SssfConfig, workspace: RunWorkspace): SssfConfig {
  return workspace.root === config.repoRoot ? config : { ...config, repoRoot: workspace.root };
}

/** What change tracking leaves out in this workspace: sssf's own files and the linked folders. */
export function workspaceExclude(config: SssfConfig, workspace: RunWorkspace): string[] {
  return [...engineOwnedPrefixes(config), ...workspace.linked];
}

/** The session row's columns that say where the run worked. */
export function workspaceColumns(
  workspace: RunWorkspace,
): Pick<SessionRow, "cwd" | "worktree" | "branch" | "base_ref" | "checkout"> {
  return {
    cwd: workspace.root,
    worktree: workspace.worktree,
    branch: workspace.branch,
    base_ref: workspace.baseRef,
    checkout: workspace.checkout,
  };
}

/** Where the run tells what happened to its workspace. */
export interface WorkspaceVoice {
  trace: SessionTrace;
  reporter: RunReporter;
}

/** Says where the run works: a notice when it fell back to in place, the worktree's origin otherwise. Never throws. */
export function announceWorkspace(workspace: RunWorkspace, { trace, reporter }: WorkspaceVoice): void {
  if (workspace.notice !== null) {
    reporter.log(workspace.notice);
    trace.event({
      type: "log",
      name: workspace.notice,
      phaseId: null,
      payload: { checkout: workspace.checkout, shown: [workspace.notice] },
    });
  }
  if (workspace.mode !== "worktree") return;
  const readded = `worktree re-added from the branch ${workspace.branch}`;
  if (workspace.action === "recreated") reporter.log(readded);
  trace.event({
    type: "log",
    name: `worktree ${workspace.action}: ${workspace.worktree} on ${workspace.branch}`,
    phaseId: null,
    payload: {
      action: workspace.action,
      worktree: workspace.worktree,
      branch: workspace.branch,
      base_ref: workspace.baseRef,
      merge_into: workspace.mergeInto,
      base_branch: workspace.baseBranch ?? null,
      linked: workspace.linked,
      open_ms: workspace.openMs,
      ...(workspace.action === "recreated" ? { shown: [readded] } : {}),
    },
  });
  // After the worktree's own event: the trace keeps the terminal's order (sssf tail prints from it).
  announceDirty(workspace, { trace, reporter });
}

/** Says what of the checkout's uncommitted work the new worktree lacks, or what `--carry-dirty` brought in. */
function announceDirty(workspace: RunWorkspace, { trace, reporter }: WorkspaceVoice): void {
  const { dirty, carried } = workspace;
  if (dirty === null) return;
  const lists = {
    modified: dirty.modified,
    staged: dirty.staged,
    deleted: dirty.deleted,
    untracked: dirty.untracked,
  };
  let line: string;
  let payload: Record<string, unknown>;
  if (carried !== null) {
    line = describeCarried(carried);
    payload = {
      carried: true,
      commit: carried.commit,
      files: carried.files,
      skipped: carried.skipped,
      ...lists,
    };
  } else if (dirty.files.length > 0 && !workspace.carryDirty) {
    line = describeLeftOut(dirty.files);
    payload = { carried: false, count: dirty.files.length, files: dirty.files, ...lists };
  } else if (workspace.carryDirty) {
    line =
      dirty.files.length === 0
        ? "--carry-dirty: the checkout has no uncommitted changes; nothing carried"
        : "--carry-dirty: the checkout's uncommitted changes leave its tree as HEAD has it; nothing carried";
    payload = { carried: false, count: dirty.files.length, files: dirty.files, ...lists };
  } else return;
  reporter.log(line);
  trace.event({
    type: "log",
    name: line,
    phaseId: null,
    payload: { checkout: workspace.checkout, ...payload, shown: [line] },
  });
}
