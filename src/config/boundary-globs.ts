/**
 * The one reading of a write-boundary pattern (`writes`, `protected_files`): how it is spelt once
 * enforced, and what makes it unusable. Config resolution stores the expanded form, so every reader of
 * `SssfConfig` sees what is enforced; `compileBoundary` applies the same expansion to globs given to it
 * directly.
 */
import path from "node:path";

const isGlobstarTail = (glob: string) => glob === "**" || glob.endsWith("/**");

/**
 * A pattern in the form sssf enforces: trimmed, repeated slashes collapsed, no leading `./`, a trailing
 * `/` meaning the folder and everything under it (`specs/` → `specs/**`), `.` or `./` the whole repo
 * (`**`). A blank pattern stays `""` (it matches nothing); an absolute or escaping one keeps its
 * spelling (`boundaryGlobProblem` refuses it). Idempotent; never throws.
 *
 * @example
 * expandBoundaryGlob("./specs/"); // "specs/**"
 * expandBoundaryGlob("src/**"); // "src/**"
 */
export function expandBoundaryGlob(glob: string): string {
  const trimmed = glob.trim();
  if (trimmed === "") return "";
  let expanded = trimmed.replace(/\/{2,}/g, "/");
  while (expanded.startsWith("./")) expanded = expanded.slice(2);
  if (expanded === "" || expanded === ".") return "**";
  if (expanded === "/" || !expanded.endsWith("/")) return expanded;
  const folder = expanded.slice(0, -1);
  return isGlobstarTail(folder) ? folder : `${folder}/**`;
}

const NEVER_OUTSIDE = "nothing outside the run root is ever writable, whatever the patterns say";

/**
 * Why `glob` cannot be enforced as written, with the fix, or undefined when it can: a blank pattern,
 * an absolute one (`/src/**`, `C:/x`, `~/x`) or one with a `..` segment (escaping the repo, or never
 * matching a normalized repo path). `repoRoot` (absolute) turns an absolute path inside the repo into
 * its relative fix. Never throws.
 *
 * @example
 * boundaryGlobProblem("/src/**", "/repo"); // 'absolute pattern "/src/**": … write "src/**"'
 */
export function boundaryGlobProblem(glob: string, repoRoot: string): string | undefined {
  const trimmed = glob.trim();
  const quoted = JSON.stringify(glob);
  if (trimmed === "") return "a blank pattern matches nothing; remove it";
  if (trimmed.startsWith("/")) {
    const root = repoRoot.split(path.sep).join("/").replace(/\/+$/, "");
    const relative =
      trimmed === root || trimmed === `${root}/`
        ? ""
        : trimmed.startsWith(`${root}/`)
          ? trimmed.slice(root.length + 1)
          : trimmed.replace(/^\/+/, "");
    const fix = relative === "" ? "**" : expandBoundaryGlob(relative);
    const whole = fix === "**" ? " for the whole repo" : "";
    return `absolute pattern ${quoted}: patterns are relative to the repo root; write ${JSON.stringify(fix)}${whole}`;
  }
  if (/^[A-Za-z]:[\\/]/.test(trimmed)) {
    return `absolute pattern ${quoted}: patterns are repo-relative POSIX globs; write it relative to the repo root`;
  }
  if (trimmed === "~" || trimmed.startsWith("~/")) {
    return `pattern ${quoted} names the home folder: patterns are relative to the repo root and ${NEVER_OUTSIDE}; remove it`;
  }
  const expanded = expandBoundaryGlob(trimmed);
  if (!expanded.split("/").includes("..")) return undefined;
  const normalized = path.posix.normalize(expanded);
  if (normalized === ".." || normalized.startsWith("../")) {
    return `pattern ${quoted} reaches outside the repo root: patterns are relative to it and ${NEVER_OUTSIDE}; remove it`;
  }
  const fix = normalized === "." ? "**" : normalized;
  return `pattern ${quoted} has a ".." segment, which no repo path has, so it would match nothing; write ${JSON.stringify(fix)}`;
}
