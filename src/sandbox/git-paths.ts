/**
 * The git paths a working tree depends on, read from the files git leaves (no git process): its `.git`
 * (a folder, or a file naming the worktree's git dir), that git dir, and the common git dir its
 * `commondir` names. Inside the box every one of them is read-only.
 */

import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}

export function gitPathsOf(workTree: string): string[] {
  const dotGit = path.join(workTree, ".git");
  let isFile: boolean;
  try {
    isFile = lstatSync(dotGit).isFile();
  } catch {
    return [];
  }
  if (!isFile) return [dotGit];
  const paths = [dotGit];
  const pointer = readText(dotGit);
  const named = pointer?.startsWith("gitdir:") ? pointer.slice("gitdir:".length).trim() : null;
  if (named === null || named === "") return paths;
  const gitDir = path.resolve(workTree, named);
  paths.push(gitDir);
  const common = readText(path.join(gitDir, "commondir"));
  if (common !== null && common !== "") paths.push(path.resolve(gitDir, common));
  return paths;
}
