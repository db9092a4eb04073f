/**
 * Deleting a branch sssf made, without a git process, where git itself would do no more than this: a
 * run's branch that got no commits is one loose file under `refs/heads/` and its reflog, and
 * `git update-ref -d` only takes the file's lock, checks the value, and removes the file, the reflog
 * and the folders they leave empty. A reftable repository, a ref in `packed-refs`, a
 * `reference-transaction` hook, a lock held, or any other value than the expected one says "use git".
 */
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import path from "node:path";
import type { RepoFacts } from "./git-facts.js";

/** A branch name git accepts and this code may join into a path: no empty, dot-led or `..` component. */
const SAFE_BRANCH_REF = /^refs\/heads\/(?!.*(?:^|\/)\.)(?!.*\.\.)(?!.*\.lock(?:\/|$))[^\0\\:?*[~^ \t\n]+$/;

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return null;
  }
}

/** True when `packed-refs` (if any) lists `ref`; also true when it cannot be read. */
function packed(commonDir: string, ref: string): boolean {
  let text: string;
  try {
    text = readFileSync(path.join(commonDir, "packed-refs"), "latin1");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
  return text.includes(` ${ref}\n`);
}

/** Removes the folders between `file` and `stop` (exclusive) that are now empty, innermost first. */
function removeEmptyParents(file: string, stop: string): void {
  for (let dir = path.dirname(file); dir.startsWith(`${stop}${path.sep}`); dir = path.dirname(dir)) {
    try {
      if (readdirSync(dir).length > 0) return;
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/**
 * Deletes `ref` (`refs/heads/…`) of the repository `facts` describe when it is a loose ref holding
 * exactly `oid`, as `git update-ref -d <ref> <oid>` would. True when deleted here; false when nothing
 * was touched and git should do it (or refuse it). Never throws.
 */
export function deleteLooseRef(
  facts: Pick<RepoFacts, "commonDir" | "hooksDir">,
  ref: string,
  oid: string,
): boolean {
  if (!SAFE_BRANCH_REF.test(ref) || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(oid)) return false;
  const { commonDir } = facts;
  const config = readOrNull(path.join(commonDir, "config"));
  // Refs not kept as files (reftable), or a hook git would run on the deletion.
  if (config === null || /refstorage/i.test(config)) return false;
  if (existsSync(path.join(facts.hooksDir, "reference-transaction"))) return false;
  const file = path.join(commonDir, ...ref.split("/"));
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, "wx");
  } catch {
    return false; // held by a git at work, or the folder is not there: git decides
  }
  try {
    closeSync(fd);
    // Checked under the lock: a `pack-refs` that ran meanwhile could have packed it.
    if (readOrNull(file) !== `${oid}\n` || packed(commonDir, ref)) return false;
    unlinkSync(file);
  } catch {
    return false;
  } finally {
    rmSync(lock, { force: true });
  }
  const log = path.join(commonDir, "logs", ...ref.split("/"));
  rmSync(log, { force: true });
  removeEmptyParents(file, path.join(commonDir, "refs", "heads"));
  removeEmptyParents(log, path.join(commonDir, "logs", "refs", "heads"));
  return true;
}
