/**
 * The repository's refs as the boundary sees them, read from the files themselves (no git process):
 * `packed-refs`, the loose refs under `refs/` (a loose ref wins over its packed line) and the main
 * checkout's `HEAD`, plus the run root's own `HEAD` in a linked worktree. Before a send they are taken,
 * after it compared; every change to a ref other than the run's own branch is undone with one
 * `git update-ref --stdin` (a symbolic value is written back as a file) and reported as one breach
 * naming every ref.
 */

import fs from "node:fs";
import path from "node:path";
import { runGit } from "../../code/run-git.js";
import type { ToolActivity } from "../write-boundary-attribution-time.js";
import { byTheAgent } from "../write-boundary-attribution-time.js";
import type { BoundaryBreach } from "../write-boundary-breach.js";

/** Ref name → its value: an object id, or `ref: <target>` for a symbolic ref. */
export type RefValues = Map<string, string>;

/** Where a run's refs live. */
export interface RefPlaces {
  commonDir: string;
  /** The run root's own git dir (the common dir in place). */
  gitDir: string;
}

/** Most loose refs read (a repository with a million tags is not guarded beyond them). */
const MAX_LOOSE = 200_000;

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** The refs `packed-refs` lists (peeled `^` lines and comments skipped). */
function packedRefs(commonDir: string): RefValues {
  const refs: RefValues = new Map();
  for (const line of (readText(path.join(commonDir, "packed-refs")) ?? "").split("\n")) {
    if (line === "" || line.startsWith("#") || line.startsWith("^")) continue;
    const space = line.indexOf(" ");
    if (space > 0) refs.set(line.slice(space + 1).trim(), line.slice(0, space));
  }
  return refs;
}

/** The loose refs under `<commonDir>/refs`, walked with `lstat` (links and special files are not read). */
function looseRefs(commonDir: string, into: RefValues): void {
  const pending = ["refs"];
  let seen = 0;
  while (pending.length > 0 && seen < MAX_LOOSE) {
    const dir = pending.pop() as string;
    let names: string[];
    try {
      names = fs.readdirSync(path.join(commonDir, dir));
    } catch {
      continue;
    }
    for (const name of names) {
      const ref = `${dir}/${name}`;
      const stat = fs.lstatSync(path.join(commonDir, ref), { throwIfNoEntry: false });
      if (stat?.isDirectory()) pending.push(ref);
      else if (stat?.isFile() && stat.size < 4096) {
        seen++;
        const value = readText(path.join(commonDir, ref))?.trim();
        if (value) into.set(ref, value);
      }
    }
  }
}

/** The refs of `places` now: packed, loose, the checkout's `HEAD` and the run root's own `HEAD`. Never throws. */
export function readRefs(places: RefPlaces): RefValues {
  const refs = packedRefs(places.commonDir);
  looseRefs(places.commonDir, refs);
  const head = readText(path.join(places.commonDir, "HEAD"))?.trim();
  if (head) refs.set("HEAD", head);
  if (places.gitDir !== places.commonDir) {
    const own = readText(path.join(places.gitDir, "HEAD"))?.trim();
    if (own) refs.set(ownHeadName(places), own);
  }
  return refs;
}

/** How the run root's own `HEAD` in a linked worktree is named: `worktrees/<id>/HEAD`. */
function ownHeadName(places: RefPlaces): string {
  return path.relative(places.commonDir, path.join(places.gitDir, "HEAD")).split(path.sep).join("/");
}

/** The commit `value` (an id or `ref: …`) stands for in `refs`, following up to five symbolic steps; null when none. */
export function resolveRef(refs: RefValues, value: string | undefined): string | null {
  let current = value;
  for (let step = 0; step < 5 && current !== undefined; step++) {
    if (!current.startsWith("ref: ")) return /^[0-9a-f]{40,64}$/.test(current) ? current : null;
    current = refs.get(current.slice(5).trim());
  }
  return null;
}

/** The commit the run root's `HEAD` is at, read from the files; null in a repository without commits. */
export function headCommit(places: RefPlaces, refs: RefValues = readRefs(places)): string | null {
  return resolveRef(refs, refs.get(places.gitDir === places.commonDir ? "HEAD" : ownHeadName(places)));
}

/**
 * Refs the agent may move: the branch the run root's `HEAD` named before the send (the run's own
 * branch, `sssf/<workflow>/<adw_id>` in a worktree run, the checked-out branch in place), other
 * runs' branches (`refs/heads/sssf/…`), which their own runs move meanwhile, and the runs'
 * checkpoints (`refs/sssf/checkpoints/…`), which sssf moves as a phase starts beside this send.
 */
export function ownRefs(places: RefPlaces, before: RefValues): (ref: string) => boolean {
  const head = before.get(places.gitDir === places.commonDir ? "HEAD" : ownHeadName(places));
  const own = head?.startsWith("ref: ") ? head.slice(5).trim() : null;
  return (ref) =>
    ref === own || ref.startsWith("refs/heads/sssf/") || ref.startsWith("refs/sssf/checkpoints/");
}

/** One ref that changed during a send. */
export interface RefChange {
  ref: string;
  was: string | undefined;
  now: string | undefined;
}

/** The refs whose value differs between `before` and `after`, sorted, `allowed` ones left out. */
export function diffRefs(
  before: RefValues,
  after: RefValues,
  allowed: (ref: string) => boolean,
): RefChange[] {
  const changes: RefChange[] = [];
  for (const ref of new Set([...before.keys(), ...after.keys()])) {
    if (allowed(ref) || before.get(ref) === after.get(ref)) continue;
    changes.push({ ref, was: before.get(ref), now: after.get(ref) });
  }
  return changes.sort((a, b) => (a.ref < b.ref ? -1 : 1));
}

function short(value: string | undefined): string {
  if (value === undefined) return "nothing";
  return value.startsWith("ref: ") ? value : value.slice(0, 12);
}

function describe(change: RefChange): string {
  if (change.was === undefined) return `${change.ref} created at ${short(change.now)}`;
  if (change.now === undefined) return `${change.ref} deleted (was ${short(change.was)})`;
  return `${change.ref} moved from ${short(change.was)} to ${short(change.now)}`;
}

/** Where a ref's value lives now (its loose file, else `packed-refs`): what `byTheAgent` dates. */
function storageOf(places: RefPlaces, ref: string): string {
  if (ref === "HEAD") return path.join(places.commonDir, "HEAD");
  if (ref.startsWith("worktrees/")) return path.join(places.commonDir, ref);
  const loose = path.join(places.commonDir, ref);
  return fs.existsSync(loose) ? loose : path.join(places.commonDir, "packed-refs");
}

/**
 * Puts every changed ref back (with `shared`, only those `activity` puts on the agent: in a worktree
 * run the operator and other runs move the checkout's refs too), and resolves to one breach naming
 * them all, or none. Object ids go back through one `git update-ref --stdin` in `cwd`; a symbolic
 * value (a `HEAD`) is written back as the file. Never rejects.
 */
export async function restoreRefs(
  cwd: string,
  places: RefPlaces,
  changes: readonly RefChange[],
  shared: ToolActivity | null,
): Promise<BoundaryBreach[]> {
  const theirs =
    shared === null ? changes : changes.filter((c) => byTheAgent(shared, storageOf(places, c.ref)));
  if (theirs.length === 0) return [];
  const lines: string[] = [];
  const failed: string[] = [];
  for (const change of theirs) {
    const symbolic = change.was?.startsWith("ref: ") === true;
    const pseudo = change.ref === "HEAD" || change.ref.startsWith("worktrees/");
    if (symbolic || pseudo) {
      const file = pseudo ? storageOf(places, change.ref) : path.join(places.commonDir, change.ref);
      try {
        if (change.was === undefined) fs.rmSync(file, { force: true });
        else {
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(`${file}.sssf-lock`, `${change.was}\n`);
          fs.renameSync(`${file}.sssf-lock`, file);
        }
      } catch {
        failed.push(change.ref);
      }
    } else if (change.was === undefined) lines.push(`delete ${change.ref}\n`);
    else lines.push(`update ${change.ref} ${change.was}\n`);
  }
  if (lines.length > 0) {
    await runGit(cwd, ["update-ref", "--no-deref", "--stdin"], { input: lines.join("") }).catch(() => {
      failed.push(...lines.map((line) => line.split(" ")[1] as string));
    });
  }
  const what = theirs.map(describe).join("; ");
  return [
    {
      path: theirs.map((c) => c.ref).join(", "),
      change: "modified",
      rule: "protected",
      restored: failed.length === 0,
      note:
        failed.length === 0
          ? `refs outside the run: ${what}; put back`
          : `refs outside the run: ${what}; could not put back ${failed.join(", ")}`,
    },
  ];
}
