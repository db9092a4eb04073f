import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/sssf-error.js";
import {
  acquireWorktreeLock,
  WorktreeLockTimeoutError,
  withWorktreeLock,
  worktreeLockPath,
} from "../../src/workspace/worktree-lock.js";
import { repoRoot } from "../helpers/sandbox.js";

const LOCK_MODULE = fileURLToPath(new URL("../../src/workspace/worktree-lock.ts", import.meta.url));

/** Takes the lock, says `held <pid>`, releases it when told (a line on stdin), says `released`, exits. */
const HOLDER = `const { acquireWorktreeLock } = await import(${JSON.stringify(LOCK_MODULE)});
const release = await acquireWorktreeLock(process.argv[1]);
console.log("held " + process.pid);
process.stdin.once("data", () => {
  release();
  console.log("released");
  process.exit(0);
});`;

let dir: string | undefined;
let holder: ChildProcess | undefined;
afterEach(() => {
  holder?.kill("SIGKILL");
  holder = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function scratch(): string {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-lock-"));
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  expect(child.status).toBe(0);
  return child.pid;
}

function content(file: string): { pid: number; host: string } {
  return JSON.parse(readFileSync(file, "utf8")) as { pid: number; host: string };
}

/** Starts a process holding the lock and resolves once it holds it. */
function startHolder(file: string): Promise<{ child: ChildProcess; pid: number; released: Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", HOLDER, file], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  holder = child;
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let onReleased: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    onReleased = resolve;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const held = /held (\d+)\n/.exec(stdout);
      if (held && !stdout.includes("released")) resolve({ child, pid: Number(held[1]), released });
      if (stdout.includes("released")) onReleased();
    });
    child.on("exit", (code) => {
      if (!/held \d+/.test(stdout)) reject(new Error(`the holder exited ${code} before holding: ${stderr}`));
    });
  });
}

describe("the worktree lock", () => {
  it("is a file in the common git dir holding its owner's pid, removed on release", async () => {
    const file = worktreeLockPath(scratch());
    expect(path.basename(file)).toBe("sssf-worktree.lock");
    const release = await acquireWorktreeLock(file);
    expect(content(file)).toMatchObject({ pid: process.pid, host: hostname() });
    release();
    expect(existsSync(file)).toBe(false);
    // Releasing twice never removes a lock someone else took meanwhile.
    const again = await acquireWorktreeLock(file);
    release();
    expect(existsSync(file)).toBe(true);
    again();
    expect(existsSync(file)).toBe(false);
  });

  it("takes over the lock of a dead holder, and one left empty long ago", async () => {
    const file = worktreeLockPath(scratch());
    const dead = deadPid();
    writeFileSync(file, JSON.stringify({ pid: dead, host: hostname(), started_at: "then", token: "x" }));
    const release = await acquireWorktreeLock(file, { waitMs: 60_000 });
    expect(content(file).pid).toBe(process.pid);
    release();

    // A process that died between creating the file and writing it.
    writeFileSync(file, "");
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(file, longAgo, longAgo);
    const second = await acquireWorktreeLock(file, { waitMs: 60_000 });
    expect(content(file).pid).toBe(process.pid);
    second();
    expect(existsSync(`${file}.takeover`)).toBe(false);
  });

  it("makes a second holder wait until the first releases it", async () => {
    const file = worktreeLockPath(scratch());
    const first = await startHolder(file);
    expect(content(file).pid).toBe(first.pid);

    let told = false;
    const waiter = acquireWorktreeLock(file).then((release) => ({ release, beforeRelease: !told }));
    // Give the waiter time to find the lock taken (the order below holds however long this is).
    await new Promise((resolve) => setTimeout(resolve, 300));
    told = true;
    first.child.stdin?.write("release\n");
    const { release, beforeRelease } = await waiter;
    await first.released;
    expect(beforeRelease).toBe(false);
    expect(content(file).pid).toBe(process.pid);
    release();
    expect(existsSync(file)).toBe(false);
  });

  it("gives up on a live holder after the wait, naming the lock file and the holder", async () => {
    const file = worktreeLockPath(scratch());
    const first = await startHolder(file);
    const error = await acquireWorktreeLock(file, { waitMs: 50 }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorktreeLockTimeoutError);
    expect(isSssfError(error)).toBe(true);
    expect((error as WorktreeLockTimeoutError).holderPid).toBe(first.pid);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain(`pid ${first.pid} on ${hostname()}`);
    // The live holder's lock is untouched.
    expect(content(file).pid).toBe(first.pid);

    // A holder on another host cannot be checked, so it is never taken over either.
    first.child.stdin?.write("release\n");
    await first.released;
    writeFileSync(file, JSON.stringify({ pid: 1, host: "elsewhere.example", started_at: "now", token: "y" }));
    await expect(acquireWorktreeLock(file, { waitMs: 50 })).rejects.toThrow(/pid 1 on elsewhere\.example/);
    expect(content(file).host).toBe("elsewhere.example");
  });

  it("queues callers of one process in order, one at a time", async () => {
    const common = scratch();
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(`${name} in`);
      expect(content(worktreeLockPath(common)).pid).toBe(process.pid);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`${name} out`);
      return name;
    };
    const results = await Promise.allSettled([
      withWorktreeLock(common, work("a")),
      withWorktreeLock(common, async () => {
        order.push("b in");
        order.push("b out");
        throw new Error("b failed");
      }),
      withWorktreeLock(common, work("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(order).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
    expect(existsSync(worktreeLockPath(common))).toBe(false);
  });
});
