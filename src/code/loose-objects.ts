/**
 * Writing small blobs into a repository's object database without a git process: each one is a loose
 * object, `<objects>/<2 hex>/<rest>`, holding the zlib-deflated `blob <size>\0<bytes>` under the hash
 * of that text, the format git reads in every version. A run's first boundary checkpoint stores the
 * hooks, the config and a few small files this way; a `git hash-object` process cost more than they do
 * (a fork blocks the event loop several milliseconds on a loaded machine).
 *
 * Only where git itself would write the same bytes to the same place: no `GIT_OBJECT_DIRECTORY`, no
 * shared repository (its object folders are group- or world-writable, and git widens each file's mode
 * to match), no second object format to keep a map for. Anything else says "use git".
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { zlib } from "../util/lazy-builtins.js";
import { blobId, type ObjectFormat } from "./fingerprint.js";
import type { RepoFacts } from "./git-facts.js";

/**
 * Loads and runs the deflate a first loose object needs (a few milliseconds at first use): call it while
 * the thread would wait anyway (git adding a worktree), so a run's first checkpoint does not.
 */
export function warmLooseObjects(): void {
  zlib().deflateSync(Buffer.alloc(1), { level: 1 });
}

/** Files up to this size are read whole and written here; bigger ones are left to git. */
export const LOOSE_WRITE_MAX_BYTES = 1024 * 1024;

/** Where loose objects of this repository go, or null when only git should write them. */
export function looseObjectDir(facts: Pick<RepoFacts, "commonDir">, env = process.env): string | null {
  if (env.GIT_OBJECT_DIRECTORY !== undefined) return null;
  const objects = path.join(facts.commonDir, "objects");
  try {
    // A shared repository's folders are group- or world-writable; git then widens each object's mode.
    if ((statSync(objects).mode & 0o022) !== 0) return null;
    // `extensions.compatObjectFormat` makes git record every object's id in a second format too.
    if (/compatobjectformat/i.test(readFileSync(path.join(facts.commonDir, "config"), "latin1"))) return null;
  } catch {
    return null;
  }
  return objects;
}

/** The bytes of `content`'s loose object file: its header and bytes, deflated. */
function looseFile(content: Buffer): Buffer {
  const header = Buffer.from(`blob ${content.length}\0`, "latin1");
  return zlib().deflateSync(Buffer.concat([header, content]), { level: 1 });
}

/**
 * Writes `content` as a loose blob under `objects` unless an object file with its id is already
 * there, and returns the id. Written to a temporary file first and then linked into place, as git
 * does, so a reader never sees half an object and an existing one is never overwritten. Throws on
 * a failed write (the caller then asks git).
 */
export function writeLooseBlob(objects: string, format: ObjectFormat, content: Buffer): string {
  const oid = blobId(format, content);
  const dir = path.join(objects, oid.slice(0, 2));
  const target = path.join(dir, oid.slice(2));
  if (statSync(target, { throwIfNoEntry: false }) !== undefined) return oid;
  mkdirSync(dir, { recursive: true });
  const temporary = path.join(dir, `tmp_obj_sssf_${process.pid}_${Math.random().toString(36).slice(2)}`);
  const fd = openSync(temporary, "wx", 0o444);
  try {
    writeSync(fd, looseFile(content));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temporary);
  }
  return oid;
}
