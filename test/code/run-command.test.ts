import { afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/code/run-command.js";
import { trackedProcessGroups } from "../../src/util/process-group.js";
import { makeTempDir, processAlive, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

/** A node one-liner as argv. */
const node = (script: string) => [process.execPath, "-e", script];
/** Starts a grandchild that lives for a minute and prints its pid. */
const SPAWN_GRANDCHILD =
  "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'] });" +
  "c.unref(); console.log('grandchild ' + c.pid);";

function grandchildPid(output: string): number {
  const match = /grandchild (\d+)/.exec(output);
  if (!match?.[1]) throw new Error(`no grandchild pid in ${JSON.stringify(output)}`);
  return Number(match[1]);
}

describe("runCommand", () => {
  it("reports exit codes and the combined output", async () => {
    dir = makeTempDir("run");
    const ok = await runCommand({
      command: node("console.log('out'); console.error('err')"),
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(ok).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      spawnError: null,
    });
    expect(ok.outputTail.split("\n").sort()).toEqual(["", "err", "out"]);
    const failed = await runCommand({ command: node("process.exit(3)"), cwd: dir, timeoutMs: 30_000 });
    expect(failed.exitCode).toBe(3);
    expect(failed.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("passes the working directory and extra environment", async () => {
    dir = makeTempDir("run");
    const script = "console.log(process.cwd() + '|' + process.env.SSSF_TEST_VALUE)";
    const result = await runCommand({
      command: node(script),
      cwd: dir,
      env: { SSSF_TEST_VALUE: "42" },
      timeoutMs: 30_000,
    });
    expect(result.outputTail.trim().endsWith("|42")).toBe(true);
    expect(result.outputTail).toContain(dir.split("/").pop());
  });

  it("reports a program that cannot start instead of rejecting", async () => {
    dir = makeTempDir("run");
    const missing = await runCommand({ command: ["sssf-no-such-program"], cwd: dir, timeoutMs: 30_000 });
    expect(missing.exitCode).toBeNull();
    expect(missing.spawnError).toMatch(/^ENOENT/);
    const empty = await runCommand({ command: [], cwd: dir, timeoutMs: 30_000 });
    expect(empty.spawnError).toBe("empty command");
  });

  it("kills the whole process group on timeout, grandchild included", async () => {
    dir = makeTempDir("run");
    const result = await runCommand({
      command: node(`${SPAWN_GRANDCHILD} setInterval(() => {}, 1000);`),
      cwd: dir,
      timeoutMs: 1500,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe("SIGTERM");
    expect(processAlive(grandchildPid(result.outputTail))).toBe(false);
    expect(trackedProcessGroups()).toEqual([]);
  });

  it("kills the group when aborted", async () => {
    dir = makeTempDir("run");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1000);
    const result = await runCommand({
      command: node(`${SPAWN_GRANDCHILD} setInterval(() => {}, 1000);`),
      cwd: dir,
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    expect(result).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
    expect(processAlive(grandchildPid(result.outputTail))).toBe(false);
    const already = await runCommand({
      command: node(""),
      cwd: dir,
      timeoutMs: 1000,
      signal: controller.signal,
    });
    expect(already.aborted).toBe(true);
  });

  it("ends a grandchild left behind when the command exits", async () => {
    dir = makeTempDir("run");
    const started = Date.now();
    const result = await runCommand({ command: node(SPAWN_GRANDCHILD), cwd: dir, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(processAlive(grandchildPid(result.outputTail))).toBe(false);
    // A grandchild that does not hold the pipes is ended as well before the result arrives.
    const quiet = SPAWN_GRANDCHILD.replace("['ignore', 'inherit', 'inherit']", "'ignore'");
    const detachedOutput = await runCommand({ command: node(quiet), cwd: dir, timeoutMs: 60_000 });
    expect(processAlive(grandchildPid(detachedOutput.outputTail))).toBe(false);
  });

  it("keeps only the tail of a large output", async () => {
    dir = makeTempDir("run");
    const script = "for (let i = 0; i < 20000; i++) console.log('line ' + i); console.log('THE END');";
    const result = await runCommand({ command: node(script), cwd: dir, timeoutMs: 30_000, tailBytes: 1000 });
    expect(result.outputTail.length).toBeLessThanOrEqual(1000);
    expect(result.outputTail.endsWith("line 19999\nTHE END\n")).toBe(true);
    const small = await runCommand({
      command: node("console.log('x'.repeat(20000))"),
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(small.outputTail.length).toBe(8 * 1024);
  });
});
