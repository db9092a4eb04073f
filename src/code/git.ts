import { execFile, execFileSync } from "node:child_process";
import type { ObjectFormat } from "./fingerprint.js";

/** Output of a repository listing: a snapshot may list tens of thousands of paths. */
const MAX_BUFFER = 512 * 1024 * 1024;

/** GIT_OPTIONAL_LOCKS=0: a status run must never take index.lock away from an agent's own git commands. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_OPTIONAL_LOCKS: "0" };
}

/** Runs git (no shell) in `cwd`; resolves to stdout, or null when git is missing or exits non-zero. */
export function git(cwd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, env: gitEnv(), maxBuffer: MAX_BUFFER, encoding: "utf8" }, (error, stdout) =>
      resolve(error ? null : stdout),
    );
  });
}

/** Synchronous `git`, for the rare diff across commits. Null on any failure. */
export function gitSync(cwd: string, args: string[]): string | null {
  try {
    return execFileSync("git", args, {
      cwd,
      env: gitEnv(),
      maxBuffer: MAX_BUFFER,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return null;
  }
}

/** Where `root` sits in its repository. */
export interface GitLocation {
  /** `root` relative to the top level, "" or ending in "/" (as `git rev-parse --show-prefix` prints it). */
  prefix: string;
  format: ObjectFormat;
  /** HEAD commit id, or null in a repository without commits. */
  head: string | null;
}

/** Null when git is unavailable or `root` is not inside a work tree. Never rejects. */
export async function locateGitRepo(root: string): Promise<GitLocation | null> {
  const info = await git(root, [
    "rev-parse",
    "--is-inside-work-tree",
    "--show-prefix",
    "--show-object-format",
  ]);
  if (info === null) return null;
  const [inside, prefix = "", format = "sha1"] = info.split("\n");
  if (inside !== "true") return null;
  const head = await git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  return {
    prefix,
    format: format === "sha256" ? "sha256" : "sha1",
    head: head === null ? null : head.trim(),
  };
}

/**
 * Paths (relative to `root`) that differ from HEAD in the index or work tree, plus untracked files not
 * ignored. Null when git fails.
 */
export async function dirtyPaths(root: string, location: GitLocation): Promise<string[] | null> {
  const args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."];
  const output = await git(root, args);
  if (output === null) return null;
  const fields = output.split("\0");
  const paths = new Set<string>();
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (field.length < 4) continue;
    const status = field.slice(0, 2);
    paths.add(field.slice(3));
    // Copy and rename entries carry the original path as the next field.
    if (/[RC]/.test(status)) paths.add(fields[++i] ?? "");
  }
  const underRoot: string[] = [];
  for (const path of paths) {
    // A nested repository is listed as "dir/"; keep it as a plain path like any other.
    const relative = path.startsWith(location.prefix)
      ? path.slice(location.prefix.length).replace(/\/$/, "")
      : "";
    if (relative !== "") underRoot.push(relative);
  }
  return underRoot;
}

/** Parses `git ls-tree -r -z` output into path -> object id. */
export function parseTree(output: string | null): Map<string, string> {
  const tree = new Map<string, string>();
  for (const record of (output ?? "").split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const oid = record.slice(0, tab).split(" ")[2];
    if (oid !== undefined) tree.set(record.slice(tab + 1), oid);
  }
  return tree;
}

/** HEAD-side object ids under `root` for `commit`. Never rejects; an empty map on failure. */
export async function readTree(root: string, commit: string | null): Promise<Map<string, string>> {
  return commit === null ? new Map() : parseTree(await git(root, ["ls-tree", "-r", "-z", commit]));
}

/** Synchronous `readTree`. */
export function readTreeSync(root: string, commit: string | null): Map<string, string> {
  return commit === null ? new Map() : parseTree(gitSync(root, ["ls-tree", "-r", "-z", commit]));
}
