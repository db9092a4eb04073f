import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliVersionCheck } from "../../src/runtimes/send-loop/cli-version.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-cli-version-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An executable shell script that appends a line to `<file>.log` on every start. */
function script(body: string): string {
  const file = path.join(dir, "cli");
  writeFileSync(file, `#!/bin/sh\necho run >> "${file}.log"\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe("cliVersionCheck", () => {
  it("gives each attempt a fresh timeout and says the spawn was killed by it", async () => {
    const file = script("exec sleep 30");
    const check = await cliVersionCheck([file], { cwd: dir, env: process.env, timeoutMs: 300 });
    expect(check).toEqual({
      ok: false,
      item: "version",
      detail: `\`${file} --version\` failed twice: no exit code, signal SIGKILL (killed after the 0.3 s timeout)`,
    });
    expect(readFileSync(`${file}.log`, "utf8")).toBe("run\nrun\n");
  });

  it("names a program that cannot start, and one that prints no version", async () => {
    const missing = path.join(dir, "missing");
    expect((await cliVersionCheck([missing], { cwd: dir, env: process.env })).detail).toBe(
      `\`${missing} --version\` failed twice: could not start (ENOENT)`,
    );
    const silent = script("echo 'no digits here' >&2");
    expect((await cliVersionCheck([silent], { cwd: dir, env: process.env })).detail).toBe(
      `\`${silent} --version\` failed twice: exit code 0 but printed no version; last stderr line: "no digits here"`,
    );
  });

  it("reads the version on the first attempt without a retry", async () => {
    const file = script("echo 'tool 1.2.3' >&2");
    const check = await cliVersionCheck([file], { cwd: dir, env: process.env, tested: "1.2.3" });
    expect(check).toEqual({ ok: true, item: "version", detail: "1.2.3" });
    expect(readFileSync(`${file}.log`, "utf8")).toBe("run\n");
  });
});
