/**
 * What each phase of a worktree run changed, from the checkpoints the engine journals before every
 * live agent or code phase (`steps` rows of op `checkpoint`, docs/resume.md): a phase's tree before is
 * its checkpoint, its tree after is the next phase's checkpoint (the last one's: the branch tip). The
 * diffs are plain `git diff` between those commits in the run's repository (`runGit`, no program of
 * the repository runs). When the objects are gone (pruned after `sssf clean`), it says so.
 */
import { runGit } from "../../../code/run-git.js";
import type { SessionRow } from "../../../trace/events.js";
import type { TraceSql } from "../../../trace/store.js";
import type { FileText } from "../api-types.js";
import { DIFF_FLAGS, gitText, repoOf, SAFE_REF } from "../changes-queries.js";
import type { PhaseChanges, PhaseTree } from "./review-types.js";

const SHA = /^[0-9a-f]{40}$/;
/** Builder rounds after the first build whose tree "fix vs first build" ends at. */
const FIX_NAMES = new Set(["fix", "revise"]);

interface CheckpointRow {
  phase_id: string;
  result_json: string;
  number: number;
  name: string;
  kind: string;
  owner: string;
}

/** The checkpoint commit and the HEAD it was taken at, or null when the row holds none. */
function checkpointOf(json: string): { commit: string; head: string | null } | null {
  try {
    const value = JSON.parse(json) as { commit?: unknown; head?: unknown } | null;
    if (typeof value?.commit !== "string" || !SHA.test(value.commit)) return null;
    return { commit: value.commit, head: typeof value.head === "string" ? value.head : null };
  } catch {
    return null;
  }
}

/** Each commit's tree, or null when the object is not in the repository. */
async function treesOf(repo: string, commits: readonly string[]): Promise<Map<string, string | null>> {
  const out = await runGit(repo, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    input: commits.map((c) => `${c}^{tree}\n`).join(""),
  });
  const lines = out.split("\n");
  return new Map(
    commits.map((commit, i) => {
      const [name = "", type = ""] = (lines[i] ?? "").split(" ");
      return [commit, type === "tree" ? name : null];
    }),
  );
}

/** The branch tip, or null when the branch is gone. */
async function tipOf(repo: string, branch: string | null): Promise<string | null> {
  if (branch === null || !SAFE_REF.test(branch) || branch.includes("..")) return null;
  try {
    const sha = (await runGit(repo, ["rev-parse", "--verify", "-q", `refs/heads/${branch}^{commit}`])).trim();
    return SHA.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

/** The last checkpoint of each phase, in phase order (a resumed phase's own, newest, wins). */
async function checkpoints(
  db: TraceSql,
  adwId: string,
): Promise<(CheckpointRow & { commit: string; head: string | null })[]> {
  const rows = await db.all<CheckpointRow>(
    `SELECT s.phase_id, s.result_json, p.number, p.name, p.kind, p.owner FROM steps s
     JOIN phases p ON p.id = s.phase_id WHERE s.adw_id = ? AND s.op = 'checkpoint'
     ORDER BY p.number, s.created_at`,
    [adwId],
  );
  const byPhase = new Map<string, CheckpointRow & { commit: string; head: string | null }>();
  for (const row of rows) {
    const point = checkpointOf(row.result_json);
    if (point !== null) byPhase.set(row.phase_id, { ...row, ...point });
  }
  return [...byPhase.values()];
}

/** The first build and the last fix after it, both with a tree after them. */
function fixVsBuild(phases: readonly PhaseTree[]): { from: string; to: string } | null {
  const build = phases.find((p) => p.kind === "agent" && p.name === "build" && p.after !== null);
  if (build === undefined) return null;
  const fix = phases
    .filter((p) => p.number > build.number && FIX_NAMES.has(p.name) && p.after !== null)
    .at(-1);
  return fix === undefined ? null : { from: build.phase_id, to: fix.phase_id };
}

/**
 * Every checkpointed phase of the run with its trees and changed paths, the fix-vs-build pair, or a
 * note saying why there is nothing to show. Never rejects for git's sake (a failure is the note).
 */
export async function readPhaseChanges(db: TraceSql, session: SessionRow): Promise<PhaseChanges> {
  const none = (note: string): PhaseChanges => ({ phases: [], fix_vs_build: null, note });
  if (session.branch === null) return none("the run worked in place: no checkpoints are taken there");
  const points = await checkpoints(db, session.adw_id);
  if (points.length === 0) return none("the trace holds no checkpoint of this run's phases");
  const repo = repoOf(session);
  if (repo === null) return none("the run's repository is gone");
  try {
    const tip = await tipOf(repo, session.branch);
    // The last phase ends at the branch tip only when it moved HEAD (a commit): what it left
    // uncommitted in the worktree is in no recorded tree.
    const last = points.at(-1);
    const end = tip !== null && last !== undefined && tip !== last.head ? tip : null;
    const afters = points.map((_, i) => points[i + 1]?.commit ?? end);
    const trees = await treesOf(repo, [
      ...new Set([...points.map((p) => p.commit), ...afters.filter((a): a is string => a !== null)]),
    ]);
    const phases: PhaseTree[] = [];
    for (const [i, point] of points.entries()) {
      const after = afters[i] ?? null;
      const before = trees.get(point.commit) ?? null;
      const afterTree = after === null ? null : (trees.get(after) ?? null);
      const changed = before === null || afterTree === null ? null : before !== afterTree;
      const files =
        changed === true && after !== null
          ? (await runGit(repo, ["diff", "--name-only", "-z", "--no-renames", point.commit, after, "--"]))
              .split("\0")
              .filter((f) => f !== "")
          : [];
      phases.push({
        phase_id: point.phase_id,
        number: point.number,
        name: point.name,
        kind: point.kind,
        owner: point.owner,
        before: point.commit,
        after,
        changed,
        files,
      });
    }
    const gone = phases.every((p) => p.changed === null);
    return {
      phases,
      fix_vs_build: fixVsBuild(phases),
      note: gone
        ? "the checkpoint commits are gone from the repository (pruned after sssf clean): no per-phase diffs"
        : null,
    };
  } catch (error) {
    return none(`git could not read the checkpoints: ${(error as Error).message}`);
  }
}

/** Why a diff between two recorded trees cannot be shown, or null when it can. */
function missing(tree: PhaseTree, side: "before" | "after"): string | null {
  if (side === "after" && tree.after === null)
    return `no tree after phase #${tree.number} ${tree.name} was recorded (the run's last phase: what it left is uncommitted in the worktree, or the branch is gone)`;
  if (tree.changed === null)
    return "the checkpoint commits are gone from the repository (pruned after sssf clean)";
  return null;
}

const noteOnly = (source: string, note: string): FileText => ({
  text: "",
  cut: 0,
  total_chars: 0,
  source,
  note,
});

/** `from=base`: the commit the run's branch started from. */
export const FROM_BASE = "base";

/**
 * The diff of one phase (`before..after`), or of the tree after `from` (or the run's base commit,
 * `from=base`) against the tree after `to`. Undefined when a phase id is not one of the run's
 * checkpointed phases (a 404).
 */
export async function phaseTreeDiff(
  db: TraceSql,
  session: SessionRow,
  ask: { phase: string } | { from: string; to: string },
): Promise<FileText | undefined> {
  const { phases } = await readPhaseChanges(db, session);
  const find = (id: string) => phases.find((p) => p.phase_id === id);
  const one = "phase" in ask;
  const fromBase = !one && ask.from === FROM_BASE;
  const b = find(one ? ask.phase : ask.to);
  const a = one ? b : fromBase ? b : find(ask.from);
  if (a === undefined || b === undefined) return undefined;
  const base = session.base_ref !== null && SHA.test(session.base_ref) ? session.base_ref : null;
  const from = one ? a.before : fromBase ? base : a.after;
  const to = b.after;
  const source = one
    ? `git diff (before and after phase #${a.number} ${a.name})`
    : `git diff (after ${fromBase ? "the run's base" : `#${a.number} ${a.name}`}, after #${b.number} ${b.name})`;
  const why = (one || fromBase ? null : missing(a, "after")) ?? missing(b, "after");
  if (why !== null || from === null || to === null) return noteOnly(source, why ?? "no base commit recorded");
  return gitText(
    session,
    ["diff", ...DIFF_FLAGS, from, to, "--"],
    `${source}: ${from.slice(0, 12)}..${to.slice(0, 12)}`,
  );
}
