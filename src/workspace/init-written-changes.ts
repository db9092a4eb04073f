/**
 * Leaves `sssf init`'s own files out of the checkout's uncommitted changes a run warns about: a fresh
 * `init` followed by `run` must not tell the operator that init's files are missing from the worktree.
 * Only what init wrote counts: a config or `.gitignore` the operator changed after committing them is
 * the operator's change and is still listed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_CONFIG_PATH } from "../config/config-schema.js";
import { GITIGNORE_LINES, SCHEMA_PATH } from "../config/init-written.js";
import type { CheckoutInfo } from "./worktree.js";
import type { CheckoutChanges } from "./worktree-dirty.js";
import { gitOutcome } from "./worktree-git.js";

/** HEAD's copy of `file` (top-level relative); null when HEAD has none (or git cannot tell). */
async function atHead(topLevel: string, file: string): Promise<string | null> {
  const outcome = await gitOutcome(topLevel, ["show", `HEAD:${file}`]);
  return outcome.ok ? outcome.stdout : null;
}

/** Lines without the trailing empty ones a final newline (or a missing one) leaves. */
function lines(text: string): string[] {
  const all = text.split("\n");
  while (all.length > 0 && all.at(-1)?.trim() === "") all.pop();
  return all;
}

/** True when `now` is `before` with only init's `.gitignore` lines appended. */
function onlyInitLinesAdded(before: string, now: string): boolean {
  const old = lines(before);
  const current = lines(now);
  if (current.length < old.length || old.some((line, i) => current[i] !== line)) return false;
  const added = current.slice(old.length).filter((line) => line.trim() !== "");
  return added.every((line) => GITIGNORE_LINES.includes(line.trim()));
}

/** Whether `file` (top-level relative) differs from HEAD only by what `sssf init` wrote. */
async function writtenByInit(topLevel: string, file: string, own: Record<string, string>): Promise<boolean> {
  if (file === own.schema) return true;
  if (file === own.config) return (await atHead(topLevel, file)) === null;
  if (file !== own.gitignore) return false;
  let now: string;
  try {
    now = readFileSync(path.join(topLevel, file), "utf8");
  } catch {
    return false;
  }
  return onlyInitLinesAdded((await atHead(topLevel, file)) ?? "", now);
}

/**
 * `changes` without `sssf init`'s own files at the repo root `git.prefix`: the schema it generates
 * (always sssf's), the config while HEAD has none (not committed yet), and `.gitignore` while it differs
 * from HEAD only by init's appended lines. The prompts are under the data dir, left out already.
 */
export async function withoutInitWritten(
  git: Pick<CheckoutInfo, "topLevel" | "prefix">,
  changes: CheckoutChanges,
): Promise<CheckoutChanges> {
  const at = (file: string) => path.posix.join(git.prefix, file);
  const own = { schema: at(SCHEMA_PATH), config: at(DEFAULT_CONFIG_PATH), gitignore: at(".gitignore") };
  const candidates = changes.files.filter((file) => Object.values(own).includes(file));
  if (candidates.length === 0) return changes;
  const drop = new Set<string>();
  for (const file of candidates) if (await writtenByInit(git.topLevel, file, own)) drop.add(file);
  if (drop.size === 0) return changes;
  const keep = (files: string[]) => files.filter((file) => !drop.has(file));
  return {
    files: keep(changes.files),
    modified: keep(changes.modified),
    staged: keep(changes.staged),
    deleted: keep(changes.deleted),
    untracked: keep(changes.untracked),
    removedFromIndex: keep(changes.removedFromIndex),
  };
}
