import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLinesSync } from "../../src/trace/jsonl-lines.js";
import { useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("lines");

describe("readLinesSync", () => {
  it("reads lines across 1 MiB chunk boundaries without splitting multi-byte characters", () => {
    const lines: string[] = [];
    for (let index = 0, bytes = 0; bytes < 3 * 1024 * 1024; index += 1) {
      const line = `${index} ${"é漢😀".repeat(index % 500)} end`;
      lines.push(line);
      bytes += Buffer.byteLength(line) + 1;
    }
    lines.push("x".repeat(2_500_000), "after the long line");
    const file = path.join(tempDir(), "events.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect([...readLinesSync(file)]).toEqual(lines);
  });

  it("yields a last line without newline and drops empty lines", () => {
    const file = path.join(tempDir(), "events.jsonl");
    writeFileSync(file, 'one\n\ntwo\r\n{"cut":');
    expect([...readLinesSync(file)]).toEqual(["one", "two\r", '{"cut":']);
    writeFileSync(file, "");
    expect([...readLinesSync(file)]).toEqual([]);
  });
});
