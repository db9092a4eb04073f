import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createRawOutputWriter } from "../../src/runtimes/send-loop/raw-output-writer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("asks the reader to pause while more than its buffer is queued, and resumes it once written", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-raw-"));
  dirs.push(dir);
  const file = path.join(dir, "raw_output.jsonl");
  const writer = createRawOutputWriter(file, (message) => {
    throw new Error(message);
  });
  expect(writer.backlogged(() => undefined)).toBe(false);
  writer.write(["x".repeat(1024 * 1024)]);
  let resumed = 0;
  expect(writer.backlogged(() => resumed++)).toBe(true);
  await new Promise<void>((resolve) => {
    const poll = () => (resumed > 0 ? resolve() : setTimeout(poll, 5));
    poll();
  });
  expect(resumed).toBe(1);
  writer.write(["tail"]);
  await writer.close();
  expect(readFileSync(file, "utf8")).toBe(`${"x".repeat(1024 * 1024)}\ntail\n`);
});
