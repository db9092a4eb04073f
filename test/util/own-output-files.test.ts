import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { filesWrittenBy, writtenBy } from "../../src/util/own-output-files.js";

const linux = process.platform === "linux";
let dir: string;
const fds: number[] = [];
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sssf-own-output-")));
});
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

function openLog(file: string): number {
  const fd = openSync(file, "a");
  fds.push(fd);
  return fd;
}

describe("the files a process's output descriptors write to", () => {
  it.runIf(linux)("names the real file behind a descriptor, through a symlinked folder too", () => {
    mkdirSync(path.join(dir, "real"));
    symlinkSync(path.join(dir, "real"), path.join(dir, "linked"));
    const fd = openLog(path.join(dir, "linked/run.log"));
    const other = openLog(path.join(dir, "other.log"));
    expect(filesWrittenBy([fd])).toEqual([path.join(dir, "real/run.log")]);
    expect(filesWrittenBy([fd, other, fd])).toEqual([
      path.join(dir, "real/run.log"),
      path.join(dir, "other.log"),
    ]);
  });

  it("names nothing for a pipe, a closed descriptor, or a file deleted or replaced since", () => {
    const deleted = openLog(path.join(dir, "gone.log"));
    unlinkSync(path.join(dir, "gone.log"));
    const replaced = openLog(path.join(dir, "replaced.log"));
    writeFileSync(path.join(dir, "new.log"), "");
    renameSync(path.join(dir, "new.log"), path.join(dir, "replaced.log"));
    const closed = openSync(path.join(dir, "closed.log"), "a");
    closeSync(closed);
    expect(filesWrittenBy([deleted, replaced, closed, 987_654])).toEqual([]);
    expect(writtenBy([deleted, replaced, closed], path.join(dir, "replaced.log"))).toBe(false);
  });

  it("tells the open file from a copy of it, or from another file of the same name later", () => {
    const file = path.join(dir, "run.log");
    const fd = openLog(file);
    writeFileSync(fd, "a line\n");
    copyFileSync(file, path.join(dir, "copy.log"));
    expect(writtenBy([fd], file)).toBe(true);
    expect(writtenBy([fd], path.join(dir, "copy.log"))).toBe(false);
    expect(writtenBy([fd], path.join(dir, "missing.log"))).toBe(false);
    renameSync(path.join(dir, "copy.log"), file);
    expect(writtenBy([fd], file)).toBe(false);
  });
});
