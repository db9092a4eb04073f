import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runQualitySuite } from "../../src/code/quality.js";
import { openSuiteLog } from "../../src/code/suite-log.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const scratch = () => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-suite-log-"));
  return dir;
};

describe("a suite's log file", () => {
  it("holds the whole output, redacted even when a secret arrives split across chunks", async () => {
    const file = path.join(scratch(), "code", "p03-test.test.log");
    const log = openSuiteLog(file);
    log.push(Buffer.from("line one\nAPI_TOKEN=abcdef"));
    log.push(Buffer.from("123456789\nend without newline"));
    expect(await log.close("tail", [])).toBe(file);
    expect(readFileSync(file, "utf8")).toBe(
      "line one\nAPI_TOKEN=[redacted:named-value]\nend without newline",
    );
  });

  it("is cut at its cap with a marker, then ends with the output's tail and why the run ended", async () => {
    const file = path.join(scratch(), "capped.log");
    const log = openSuiteLog(file, { capBytes: 10 });
    log.push(Buffer.from("0123456789abcdef\n"));
    log.push(Buffer.from("more\n"));
    expect(await log.close("the tail", ["[sssf] timed out"])).toBe(file);
    expect(readFileSync(file, "utf8")).toBe(
      "0123456789\n[sssf] log cut at 10 bytes: 12 more bytes of output not kept; the output's tail follows\nthe tail\n[sssf] timed out\n",
    );
  });

  it("runQualitySuite streams the output there and names it; an unwritable path gives no log, not a failure", async () => {
    const root = scratch();
    const suite = {
      name: "test",
      command: [
        process.execPath,
        "-e",
        "for (let i = 0; i < 100; i++) console.log('row ' + i); process.exit(3)",
      ],
      timeoutMs: 30_000,
      env: {},
    };
    const logPath = path.join(root, "test.log");
    const result = await runQualitySuite(suite, root, { logPath });
    expect(result).toMatchObject({ passed: false, exitCode: 3, logPath });
    expect(result.outputTail.split("\n")).toHaveLength(60);
    expect(readFileSync(logPath, "utf8").split("\n").filter(Boolean)).toHaveLength(100);
    const blocked = await runQualitySuite(suite, root, { logPath: path.join(logPath, "inside-a-file.log") });
    expect(blocked).toMatchObject({ passed: false, exitCode: 3, logPath: null });
  });
});
