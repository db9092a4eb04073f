/**
 * The flags in git's index that hide a file's changes from `git status`: skip-worktree and
 * assume-unchanged (assume-valid). The boundary compares files itself, so a flag hides nothing from
 * it; but a flag the agent sets or clears stays behind in the operator's repository, so it is read
 * before and after each send (from the index file, no git process; parsed again only when the file's
 * `lstat` moved) and every flag the send changed is set back with one `git update-index`.
 */

import fs from "node:fs";
import path from "node:path";
import type { ObjectFormat } from "../../code/fingerprint.js";
import { runGit } from "../../code/run-git.js";
import type { BoundaryBreach } from "../write-boundary-breach.js";

/** Path → its hiding flags (`S` skip-worktree, `A` assume-unchanged, or both). */
export type IndexFlags = Map<string, string>;

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;

/** Reads git's offset varint (index v4) at `at`; returns [value, next offset]. */
function varint(buffer: Buffer, at: number): [number, number] {
  let c = buffer[at++] ?? 0;
  let value = c & 127;
  while (c & 128) {
    c = buffer[at++] ?? 0;
    value = ((value + 1) << 7) + (c & 127);
  }
  return [value, at];
}

/** The hiding flags of every entry of an index file's bytes; empty when it is not an index sssf can read. */
export function parseIndexFlags(buffer: Buffer, format: ObjectFormat): IndexFlags {
  const flags: IndexFlags = new Map();
  if (buffer.length < 12 || buffer.toString("latin1", 0, 4) !== "DIRC") return flags;
  const version = buffer.readUInt32BE(4);
  const count = buffer.readUInt32BE(8);
  if (version < 2 || version > 4) return flags;
  const oidLength = format === "sha256" ? 32 : 20;
  let at = 12;
  let previous = "";
  for (let i = 0; i < count; i++) {
    const start = at;
    at += 40 + oidLength;
    if (at + 2 > buffer.length) return flags;
    const entryFlags = buffer.readUInt16BE(at);
    at += 2;
    let extended = 0;
    if (version >= 3 && entryFlags & EXTENDED) {
      extended = buffer.readUInt16BE(at);
      at += 2;
    }
    let name: string;
    if (version === 4) {
      const [strip, next] = varint(buffer, at);
      const end = buffer.indexOf(0, next);
      if (end < 0) return flags;
      name = previous.slice(0, Math.max(0, previous.length - strip)) + buffer.toString("utf8", next, end);
      at = end + 1;
    } else {
      const end = buffer.indexOf(0, at);
      if (end < 0) return flags;
      name = buffer.toString("utf8", at, end);
      at = start + ((end - start + 8) & ~7);
    }
    previous = name;
    const hiding = `${extended & SKIP_WORKTREE ? "S" : ""}${entryFlags & ASSUME_VALID ? "A" : ""}`;
    if (hiding !== "") flags.set(name, hiding);
  }
  return flags;
}

/** The flags of one index file, parsed again only when its `lstat` moved. */
export class IndexFlagReader {
  private last: { key: string; flags: IndexFlags } | null = null;

  constructor(
    private readonly gitDir: string,
    private readonly format: ObjectFormat,
  ) {}

  /** The index's hiding flags now (none when there is no index). Never throws. */
  read(): IndexFlags {
    const file = path.join(this.gitDir, "index");
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile()) return new Map();
    const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    if (this.last?.key === key) return this.last.flags;
    let buffer: Buffer;
    try {
      buffer = fs.readFileSync(file);
    } catch {
      return new Map();
    }
    const flags = parseIndexFlags(buffer, this.format);
    this.last = { key, flags };
    return flags;
  }
}

const OPTION: Record<string, [string, string]> = {
  S: ["--skip-worktree", "--no-skip-worktree"],
  A: ["--assume-unchanged", "--no-assume-unchanged"],
};

/**
 * Sets every flag that changed between `before` and `after` back with `git update-index` in `cwd`
 * (one process per flag and direction that changed), and resolves to one breach named `display`
 * listing the paths, or none. Never rejects.
 */
export async function restoreIndexFlags(
  cwd: string,
  before: IndexFlags,
  after: IndexFlags,
  display: string,
): Promise<BoundaryBreach[]> {
  const work = new Map<string, string[]>();
  const said: string[] = [];
  for (const file of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(file) ?? "";
    const now = after.get(file) ?? "";
    if (was === now) continue;
    for (const flag of ["S", "A"] as const) {
      if (was.includes(flag) === now.includes(flag)) continue;
      const [set, clear] = OPTION[flag] as [string, string];
      const option = was.includes(flag) ? set : clear;
      work.set(option, [...(work.get(option) ?? []), file]);
      said.push(`${was.includes(flag) ? "cleared" : "set"} ${set.slice(2)} on ${file}`);
    }
  }
  if (work.size === 0) return [];
  let restored = true;
  for (const [option, files] of work) {
    await runGit(cwd, ["update-index", option, "-z", "--stdin"], {
      input: `${files.join("\0")}\0`,
    }).catch(() => {
      restored = false;
    });
  }
  const shown = said.slice(0, 10).join("; ") + (said.length > 10 ? `; and ${said.length - 10} more` : "");
  return [
    {
      path: display,
      change: "modified",
      rule: "protected",
      restored,
      note: `git's index flags changed (they hide a file's changes from git status): ${shown}`,
    },
  ];
}
