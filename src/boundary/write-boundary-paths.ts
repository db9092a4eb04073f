/**
 * Paths named by an agent's tool calls: which argument names hold them, how they resolve against the
 * run root, and how a run root reached through a symlink is compared.
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Argument names file tools put paths in (pi, Claude Code, Gemini, opencode, codex, the scripted agent). */
const PATH_KEYS = [
  "path",
  "file_path",
  "filePath",
  "notebook_path",
  "absolute_path",
  "old_path",
  "new_path",
  "oldPath",
  "newPath",
  "source",
  "destination",
  "from",
  "to",
];
/** Argument names holding a list of paths, or of objects with a `path` (codex `changes`). */
const LIST_KEYS = ["paths", "file_paths", "changes", "edits", "files"];

/** Every path-like string in a tool call's arguments. Never throws. */
export function toolCallPaths(args: unknown): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  const fields = args as Record<string, unknown>;
  const found: string[] = [];
  for (const key of PATH_KEYS) {
    const value = fields[key];
    if (typeof value === "string" && value.trim() !== "") found.push(value.trim());
  }
  for (const key of LIST_KEYS) {
    const list = fields[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item === "string" && item.trim() !== "") found.push(item.trim());
      else if (typeof item === "object" && item !== null) found.push(...toolCallPaths(item));
    }
  }
  return found;
}

/** A tool's path made absolute against the run root (`~/` is the home folder). */
export function resolveToolPath(raw: string, root: string): string {
  const expanded = raw === "~" || raw.startsWith("~/") ? path.join(os.homedir(), raw.slice(1)) : raw;
  return path.resolve(root, expanded);
}

/** True when `file` is `dir` or below it. */
export function isWithin(file: string, dir: string): boolean {
  return file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`);
}

/** `paths` plus the real path of each that exists. Never throws. */
export function withRealPaths(paths: readonly string[]): string[] {
  const all = new Set<string>();
  for (const p of paths) {
    all.add(p);
    try {
      all.add(fs.realpathSync(p));
    } catch {
      // not there yet: the lexical path is enough
    }
  }
  return [...all];
}

/** Maps a path through the run root's real location back to its lexical spelling. */
export function toLexical(absolute: string, root: string): string {
  const parent = path.dirname(root);
  let realParent = parent;
  try {
    realParent = fs.realpathSync(parent);
  } catch {
    return absolute;
  }
  return realParent !== parent && isWithin(absolute, realParent)
    ? path.join(parent, path.relative(realParent, absolute))
    : absolute;
}

/**
 * The repo-relative POSIX paths inside the run root that a tool call's arguments name. `roots` is the
 * run root as spelled and its real path (see `withRealPaths`). Never throws.
 */
export function namedInsideRoot(args: unknown, roots: readonly string[]): string[] {
  const [root] = roots;
  if (root === undefined) return [];
  const found: string[] = [];
  for (const raw of toolCallPaths(args)) {
    const absolute = resolveToolPath(raw, root);
    const base = roots.find((r) => absolute !== r && isWithin(absolute, r));
    if (base !== undefined) found.push(path.relative(base, absolute).split(path.sep).join("/"));
  }
  return found;
}
