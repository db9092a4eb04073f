import { afterEach, expect, it } from "vitest";
import { runCommand } from "../../src/code/run-command.js";
import { makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

// 768 MiB on stdout without a newline: more than V8's largest string, so a suite output held whole (or
// as one line) could not even be built.
const FLOOD = `
const block = Buffer.alloc(1024 * 1024, "x");
let left = 768;
const pump = () => {
  while (left > 0) {
    left--;
    if (!process.stdout.write(block)) return process.stdout.once("drain", pump);
  }
  process.stdout.write(" the end");
};
pump();
`;

it("keeps a bounded tail of a suite that prints one 768 MiB line", { timeout: 300_000 }, async () => {
  dir = makeTempDir("huge-line");
  const result = await runCommand({
    command: [process.execPath, "-e", FLOOD],
    cwd: dir,
    timeoutMs: 240_000,
    tailBytes: 4096,
  });
  expect(result).toMatchObject({ exitCode: 0, timedOut: false, outputCut: true, spawnError: null });
  expect(result.outputTail).toHaveLength(4096);
  expect(result.outputTail.endsWith("xxx the end")).toBe(true);
});
