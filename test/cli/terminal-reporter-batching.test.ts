import { describe, expect, it } from "vitest";
import { createTerminalReporter } from "../../src/cli/report/terminal-reporter.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import { phaseRow } from "../trace/trace-fixtures.js";

const phase = phaseRow("run", 2, new Date(0).toISOString(), { id: "run-p02", name: "build" });

const call = (index: number): ToolCall => ({
  tool: "bash",
  name: `bash: echo ${index}`,
  args: { command: `echo ${index}` },
  result: String(index),
  ok: true,
  startedAt: new Date(0),
  endedAt: new Date(0),
});

/** A stream like a file's stdout (it can cork), counting its writes. */
function fileLikeStdout(): { out: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const out = {
    isTTY: false,
    cork: () => undefined,
    uncork: () => undefined,
    write: (text: string) => writes.push(text) > 0,
  } as unknown as NodeJS.WriteStream;
  return { out, writes };
}

describe("the plain reporter under a flood of tool calls", () => {
  it("writes the tool call lines of one tick at once, in order, before the next line of the run", async () => {
    const { out, writes } = fileLikeStdout();
    const reporter = createTerminalReporter(out, "/");
    reporter.phaseStarted(phase);
    for (let index = 0; index < 1000; index++) reporter.toolCall(phase, call(index));
    reporter.phaseEnded({ ...phase, status: "success", duration_ms: 10 });
    for (let index = 1000; index < 1500; index++) reporter.toolCall(phase, call(index));
    expect(writes).toHaveLength(3);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(writes).toHaveLength(4);
    const lines = writes.join("").split("\n").slice(0, -1);
    expect(lines).toHaveLength(1 + 1000 + 1 + 500);
    expect(lines[0]).toMatch(/^▶ 02 build/);
    expect(lines.slice(1, 1001)).toEqual(Array.from({ length: 1000 }, (_, i) => `   · bash: echo ${i} 0ms`));
    expect(lines[1001]).toMatch(/^✔ 02 build/);
    expect(lines.slice(1002)).toEqual(
      Array.from({ length: 500 }, (_, i) => `   · bash: echo ${1000 + i} 0ms`),
    );
  });
});
