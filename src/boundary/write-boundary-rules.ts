import { expandBoundaryGlob } from "../config/boundary-globs.js";
import { globMatcher } from "./glob-match.js";

/**
 * Why a write breaks an agent's boundary: a protected file, a path its `writes` do not cover, a path
 * outside the run root, or, wherever it is, a special file (FIFO, socket, device node) or a file
 * hard-linked to one elsewhere, which the boundary never lets stand.
 */
export type BoundaryRule = "protected" | "outside_writes" | "outside_root" | "special_file" | "hard_link";

/** The globs one agent's boundary is made of. */
export interface BoundaryGlobs {
  /** The agent's `writes` (repo-relative globs; `["**"]` by default). */
  writes: readonly string[];
  /** The roster's `protected_files`: never writable, whatever `writes` says. */
  protectedFiles: readonly string[];
}

/** Decides one repo-relative POSIX path: null when the agent may write it, else the rule it breaks. */
export type BoundaryJudge = (relativePath: string) => BoundaryRule | null;

function matcher(globs: readonly string[]): (file: string) => boolean {
  // The config's own reading: "specs/" is specs/**, "./docs/*.md" is docs/*.md, a blank glob is dropped.
  const usable = globs.map(expandBoundaryGlob).filter((g) => g !== "");
  // Dot files included, so "**" covers .github/ and `.env*` globs see dotfiles; an empty list matches nothing.
  return globMatcher(usable);
}

/**
 * Compiles an agent's boundary once. The judge never throws; protected wins over `writes`; an empty
 * `writes` list allows nothing. Globs are read as the config reads them (`expandBoundaryGlob`: a
 * trailing "/" means the folder and everything under it). Paths are matched as given (repo-relative,
 * POSIX separators, no leading "./"); a path starting with "../" or "/" is `outside_root`.
 *
 * @example
 * const judge = compileBoundary({ writes: ["src/**"], protectedFiles: [".env"] });
 * judge("src/a.ts"); // null
 * judge("README.md"); // "outside_writes"
 * judge(".env"); // "protected"
 * compileBoundary({ writes: ["specs/"], protectedFiles: [] })("specs/a.md"); // null
 */
export function compileBoundary(globs: BoundaryGlobs): BoundaryJudge {
  const isProtected = matcher(globs.protectedFiles);
  const isWritable = matcher(globs.writes);
  return (relativePath) => {
    const file = relativePath.replace(/^\.\//, "");
    if (file === "" || file === ".." || file.startsWith("../") || file.startsWith("/")) return "outside_root";
    if (isProtected(file)) return "protected";
    return isWritable(file) ? null : "outside_writes";
  };
}

/** The stronger of two rules for one change (a rename judged on both sides): protected wins. */
export function worseRule(a: BoundaryRule | null, b: BoundaryRule | null): BoundaryRule | null {
  if (a === "protected" || b === "protected") return "protected";
  return a ?? b;
}
