import fs from "node:fs";
import path from "node:path";
import { hostPathOfBoxPath } from "../sandbox/box-paths.js";

/** A claimed path inside the repo, or why it is not acceptable. */
export type ResolvedClaimedPath =
  | { ok: true; absolute: string; relative: string }
  | { ok: false; reason: string };

const ESCAPES = "escapes the repo root";
/** Bounds symlink chains and cycles; far beyond any real layout. */
const MAX_LINK_HOPS = 64;

/**
 * Resolves a path an agent claimed (relative to `repoRoot`, or absolute inside it) and checks it stays in
 * the repo. `..` escapes, absolute paths elsewhere, and symlinks whose real location leaves the root are
 * refused with reason "escapes the repo root"; the target need not exist. `relative` uses POSIX
 * separators ("." for the root itself). Never throws.
 * @example resolveClaimedPath("/repo", "src/a.ts") // { ok: true, absolute: "/repo/src/a.ts", relative: "src/a.ts" }
 */
export function resolveClaimedPath(repoRoot: string, boxClaimed: string): ResolvedClaimedPath {
  if (boxClaimed.trim() === "") return { ok: false, reason: "empty path" };
  // A boxed agent names files by their paths inside the box (its working tree at /sssf/work/<name>).
  const claimed = hostPathOfBoxPath(boxClaimed, repoRoot, "");
  if (claimed.includes("\0")) return { ok: false, reason: "path contains a NUL byte" };
  const root = path.resolve(repoRoot);
  const realRoot = realLocation(root);
  const target = path.isAbsolute(claimed) ? path.resolve(claimed) : path.resolve(root, claimed);

  // An absolute claim may spell the root through its real path (/private/tmp vs /tmp on macOS).
  let relative = insideRelative(root, target);
  if (relative === null && path.isAbsolute(claimed)) relative = insideRelative(realRoot, target);
  if (relative === null) return { ok: false, reason: ESCAPES };

  const absolute = relative === "" ? root : path.join(root, relative);
  if (insideRelative(realRoot, realLocation(absolute)) === null) return { ok: false, reason: ESCAPES };
  return { ok: true, absolute, relative: relative === "" ? "." : relative.split(path.sep).join("/") };
}

/**
 * Resolves an artifact an agent claimed: a path in the repo as `resolveClaimedPath` accepts it, or an
 * absolute path inside the session's `context_handoff/` (the one place agents write files for later
 * agents, which lies outside the repo root when the run works in its own worktree). Never throws.
 */
export function resolveArtifactPath(
  repoRoot: string,
  contextHandoffDir: string,
  boxClaimed: string,
): ResolvedClaimedPath {
  // A boxed agent names files by their paths inside the box.
  const claimed = hostPathOfBoxPath(boxClaimed, repoRoot, contextHandoffDir);
  const inRepo = resolveClaimedPath(repoRoot, claimed);
  if (inRepo.ok || !path.isAbsolute(claimed)) return inRepo;
  const handoff = resolveClaimedPath(contextHandoffDir, claimed);
  if (!handoff.ok) return inRepo;
  return { ok: true, absolute: handoff.absolute, relative: handoff.absolute.split(path.sep).join("/") };
}

/** `target` relative to `base` when it lies inside (or is) `base`, else null. */
function insideRelative(base: string, target: string): string | null {
  const relative = path.relative(base, target);
  if (relative === "") return "";
  if (path.isAbsolute(relative) || relative === ".." || relative.startsWith(`..${path.sep}`)) return null;
  return relative;
}

/**
 * Where `p` really points: realpath of the deepest existing ancestor plus the missing tail. Dangling
 * symlinks are followed by hand because realpath refuses them, yet writing through them lands at the target.
 */
function realLocation(p: string, hops = 0): string {
  try {
    return fs.realpathSync(p);
  } catch {
    // fall through: p (or something above it) does not exist or is a dangling link
  }
  const parent = path.dirname(p);
  if (parent === p || hops > MAX_LINK_HOPS) return p;
  const realParent = realLocation(parent, hops + 1);
  let link: string | null = null;
  try {
    if (fs.lstatSync(p).isSymbolicLink()) link = fs.readlinkSync(p);
  } catch {
    link = null;
  }
  if (link !== null) return realLocation(path.resolve(realParent, link), hops + 1);
  return path.join(realParent, path.basename(p));
}
