import { afterEach, describe, expect, it } from "vitest";
import { runQualitySuite } from "../../src/code/quality.js";
import type { QualitySuiteConfig } from "../../src/config/config-types.js";
import { makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

const suite = (script: string, timeoutMs = 30_000): QualitySuiteConfig => ({
  name: "test",
  command: [process.execPath, "-e", script],
  timeoutMs,
  env: { SSSF_SUITE: "yes" },
});

describe("runQualitySuite", () => {
  it("passes on exit code 0 and keeps the output", async () => {
    dir = makeTempDir("quality");
    const result = await runQualitySuite(suite("console.log('env ' + process.env.SSSF_SUITE)"), dir);
    expect(result).toMatchObject({ suite: "test", passed: true, exitCode: 0, outputTail: "env yes" });
    expect(result.command[0]).toBe(process.execPath);
  });

  it("fails on a non-zero exit and keeps the last 60 lines", async () => {
    dir = makeTempDir("quality");
    const result = await runQualitySuite(
      suite("for (let i = 1; i <= 100; i++) console.log('l' + i); process.exit(2)"),
      dir,
    );
    expect(result.passed).toBe(false);
    expect(result.exitCode).toBe(2);
    const lines = result.outputTail.split("\n");
    expect(lines).toHaveLength(60);
    expect(lines[0]).toBe("l41");
    expect(lines[59]).toBe("l100");
  });

  it("fails a suite that times out or cannot start, saying why", async () => {
    dir = makeTempDir("quality");
    const slow = await runQualitySuite(
      suite("console.log('started'); setInterval(() => {}, 1000)", 800),
      dir,
    );
    expect(slow.passed).toBe(false);
    expect(slow.outputTail).toBe("started\n[sssf] timed out after 800 ms; process group killed");
    const missing = await runQualitySuite({ ...suite(""), command: ["sssf-no-such-tool", "run"] }, dir);
    expect(missing.passed).toBe(false);
    expect(missing.outputTail).toMatch(/^\[sssf\] could not start sssf-no-such-tool run: ENOENT/);
  });

  it("fails an aborted suite", async () => {
    dir = makeTempDir("quality");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const result = await runQualitySuite(suite("setInterval(() => {}, 1000)"), dir, controller.signal);
    expect(result).toMatchObject({
      passed: false,
      exitCode: null,
      outputTail: "[sssf] aborted; process group killed",
    });
  });
});
