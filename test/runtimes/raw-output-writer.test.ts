import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createRawOutputWriter } from "../../src/runtimes/send-loop/raw-output-writer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed after the test. */
function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-raw-"));
  dirs.push(dir);
  return dir;
}

/** A writer whose every reported failure fails the test. */
const strictWriter = (file: string) =>
  createRawOutputWriter(file, (message) => {
    throw new Error(message);
  });

it("asks the reader to pause while more than its buffer is queued, and resumes it once written", async () => {
  const dir = scratchDir();
  const file = path.join(dir, "raw_output.jsonl");
  const writer = strictWriter(file);
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

it("keeps every line in order across many small and large writes, appending to what the file held", async () => {
  const dir = scratchDir();
  const file = path.join(dir, "nested/agent/raw_output.jsonl");
  const first = strictWriter(file);
  first.write(["before"]);
  await first.close();
  const writer = strictWriter(file);
  const expected = ["before"];
  for (let i = 0; i < 3000; i++) {
    const batch = [`{"n":${i}}`, i % 500 === 0 ? "y".repeat(200_000) : `é ${i} ✓`];
    writer.write(batch);
    expected.push(...batch);
  }
  await writer.close();
  expect(readFileSync(file, "utf8")).toBe(`${expected.join("\n")}\n`);
  // Closed: later lines are dropped, and closing again resolves.
  writer.write(["late"]);
  await writer.close();
  expect(readFileSync(file, "utf8").endsWith("✓\n")).toBe(true);
});

it("redacts each line, and reports a file it cannot open once without throwing", async () => {
  const dir = scratchDir();
  const file = path.join(dir, "raw_output.jsonl");
  const writer = strictWriter(file);
  writer.write([`{"token":"ghp_${"a".repeat(36)}"}`]);
  await writer.close();
  expect(readFileSync(file, "utf8")).not.toContain("ghp_");

  const errors: string[] = [];
  // A folder where the file should be: it cannot be opened for appending.
  const blocked = createRawOutputWriter(dir, (message) => errors.push(message));
  blocked.write(["lost"]);
  expect(blocked.backlogged(() => undefined)).toBe(false);
  await blocked.close();
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/^cannot write raw output .*: EISDIR/);
});

it("closes only after the write under way lands, whatever was queued when close was called", async () => {
  const dir = scratchDir();
  // Large lines: the write takes long enough that a close issued beside it would land first.
  const big = "z".repeat(16 * 1024 * 1024);
  for (let round = 0; round < 4; round++) {
    const file = path.join(dir, `raw-${round}.jsonl`);
    const errors: string[] = [];
    const writer = createRawOutputWriter(file, (message) => errors.push(message));
    // One write under way and nothing queued behind it when close is called.
    writer.write([`line ${round} ${big}`]);
    await writer.close();
    expect(errors).toEqual([]);
    expect(readFileSync(file, "utf8") === `line ${round} ${big}\n`).toBe(true);
  }
});
