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

const ANY_PATH_KEY: ReadonlySet<string> = new Set([...PATH_KEYS, ...LIST_KEYS]);
const NO_PATHS: readonly string[] = Object.freeze([]);

// A call's arguments are read by several hooks and again at settle, per call of a flood: found once.
const pathsOfArgs = new WeakMap<object, readonly string[]>();

/** Every path-like string in a tool call's arguments (read-only: one array per arguments object). Never throws. */
export function toolCallPaths(args: unknown): readonly string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return NO_PATHS;
  // Most calls of a flood (shell commands) hold no path key: their own keys, usually one or two, say
  // so faster than looking up every path key, and they need no cache entry.
  let named = false;
  for (const key in args) {
    if (ANY_PATH_KEY.has(key)) {
      named = true;
      break;
    }
  }
  if (!named) return NO_PATHS;
  let found = pathsOfArgs.get(args);
  if (found === undefined) {
    found = Object.freeze(findToolCallPaths(args as Record<string, unknown>));
    pathsOfArgs.set(args, found);
  }
  return found;
}

function findToolCallPaths(args: Record<string, unknown>): string[] {
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

/**
 * The real location of `absolute`: `realpath` of the path itself when it exists (a symlink is
 * followed to what a write through it touches), else of its deepest existing ancestor with the
 * missing rest appended. Never throws; a path no ancestor of which exists comes back as given.
 */
export function realPathOf(absolute: string): string {
  const rest: string[] = [];
  let head = path.resolve(absolute);
  for (;;) {
    try {
      const real = fs.realpathSync.native(head);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return path.resolve(absolute);
      rest.push(path.basename(head));
      head = parent;
    }
  }
}

/**
 * The repo-relative POSIX paths inside the run root that a tool call's arguments name, each resolved
 * through `realpath` (a write through a symlink names what it really touches: a link inside the root
 * pointing out of it names nothing inside). `roots` is the run root as spelled and its real path
 * (see `withRealPaths`). Never throws.
 */
export function namedInsideRoot(args: unknown, roots: readonly string[]): string[] {
  const [root] = roots;
  const named = toolCallPaths(args);
  // Most calls name no path (a shell command): then no realpath of the roots, called once per call.
  if (root === undefined || named.length === 0) return [];
  const realRoots = [...new Set(roots.map(realPathOf))];
  const found: string[] = [];
  for (const raw of named) {
    const real = realPathOf(resolveToolPath(raw, root));
    const base = realRoots.find((r) => real !== r && isWithin(real, r));
    if (base !== undefined) found.push(path.relative(base, real).split(path.sep).join("/"));
  }
  return found;
}

/**
 * How a breach names a real path outside the run root: relative to the real root (`../notes.txt`,
 * `../../../../README.md`) when it lies under `near` (the root's parent folder, the operator's
 * checkout), absolute elsewhere. POSIX separators.
 */
export function displayPath(realRoot: string, real: string, near: readonly string[]): string {
  if (isWithin(real, realRoot) || near.some((dir) => isWithin(real, dir)))
    return path.relative(realRoot, real).split(path.sep).join("/");
  return real;
}
