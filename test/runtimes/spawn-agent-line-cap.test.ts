import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { parseExecLine } from "../../src/runtimes/exec/protocol.js";
import { capMarker } from "../../src/runtimes/send-loop/line-splitter.js";
import { spawnAgent } from "../../src/runtimes/send-loop/spawn-agent.js";
import { STDERR_TAIL_CHARS } from "../../src/runtimes/send-loop/watch-agent-process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-line-cap-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The argv running `script` with node. */
function program(script: string): string[] {
  const file = path.join(dir, "agent.mjs");
  writeFileSync(file, script);
  return [process.execPath, file];
}

async function run(command: string[]) {
  const lines: string[] = [];
  const logs: { message: string; details: Record<string, unknown> | undefined }[] = [];
  const rawOutputPath = path.join(dir, "session/raw_output.jsonl");
  const outcome = await spawnAgent({
    command,
    cwd: dir,
    stdin: "",
    rawOutputPath,
    timeouts: { idleMs: 30_000, wallMs: 60_000 },
    onLine: (line) => lines.push(line),
    observer: { onLog: (message, details) => logs.push({ message, details }) },
    lineCap: { headBytes: 1000, tailBytes: 100, cutWordUnits: 0 },
  });
  const raw = readFileSync(rawOutputPath, "utf8").split("\n").slice(0, -1);
  return { outcome, lines, logs, raw };
}

it("caps an over-long stdout line, logs the bytes dropped, and keeps reading the lines after it", async () => {
  const body = "é".repeat(150_000); // 300,000 bytes
  const { outcome, lines, logs, raw } = await run(
    program(`
const line = JSON.stringify({ type: "tool_call", tool: "read", result: ${JSON.stringify(body)} });
for (let i = 0; i < line.length; i += 65536) process.stdout.write(line.slice(i, i + 65536));
process.stdout.write('\\n{"type":"result","text":"done"}\\n');
`),
  );
  expect(outcome).toMatchObject({ exitCode: 0, spawnError: null, timedOut: null });
  const full = JSON.stringify({ type: "tool_call", tool: "read", result: body });
  const lineBytes = Buffer.byteLength(full);
  // 44 ASCII bytes before the 2-byte é's, 2 after them: both cuts fall between characters.
  const dropped = lineBytes - 1000 - 100;
  const bytes = Buffer.from(full);
  const expected = `${bytes.subarray(0, 1000).toString()}${capMarker(dropped)}${bytes.subarray(-100).toString()}`;
  expect(lines).toEqual([expected, '{"type":"result","text":"done"}']);
  expect(raw).toEqual(lines);
  expect(logs).toEqual([
    {
      message: `stdout line of ${lineBytes} bytes capped: ${dropped} bytes dropped (kept the first 1000 and the last 100)`,
      details: { line_bytes: lineBytes, dropped_bytes: dropped, head_bytes: 1000, tail_bytes: 100 },
    },
  ]);
  // Cut inside a JSON string, the event still parses: its string says what was dropped (the marker
  // holds no quote or backslash).
  expect(parseExecLine(expected)).toMatchObject({
    type: "tool_call",
    tool: "read",
    result: expect.stringContaining(capMarker(dropped)),
  });
  expect(parseExecLine(lines[1] as string)).toEqual({ type: "result", text: "done" });
});

it("hands on a capped line cut between JSON tokens as a line that does not parse", async () => {
  const { lines, logs } = await run(
    program(`
process.stdout.write('{"type":"tool_call","tool":"read","args":[' + "1,".repeat(100_000) + '1]}\\n');
process.stdout.write('{"type":"result","text":"done"}\\n');
`),
  );
  expect(logs).toHaveLength(1);
  expect(lines).toHaveLength(2);
  expect(() => JSON.parse(lines[0] as string)).toThrow(SyntaxError);
  // The exec parser ignores it like any other non-JSON line; the result after it still counts.
  expect(parseExecLine(lines[0] as string)).toBeNull();
  expect(parseExecLine(lines[1] as string)).toEqual({ type: "result", text: "done" });
});

it("keeps only a ~2 KB tail of 64 MiB of stderr", async () => {
  const { outcome } = await run(
    program(`
const block = "e".repeat(1024 * 1024);
let left = 64;
const write = () => {
  while (left > 0) {
    left--;
    if (!process.stderr.write(block)) return process.stderr.once("drain", write);
  }
  process.stderr.write("THE LAST WORDS");
};
write();
`),
  );
  expect(outcome.exitCode).toBe(0);
  expect(outcome.stderrTail).toHaveLength(STDERR_TAIL_CHARS);
  expect(outcome.stderrTail.endsWith("eeeTHE LAST WORDS")).toBe(true);
});
