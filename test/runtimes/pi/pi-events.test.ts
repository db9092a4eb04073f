import { describe, expect, it } from "vitest";
import { createPiStreamParser } from "../../../src/runtimes/pi/events.js";
import type { ToolCall } from "../../../src/runtimes/runtime.js";

const line = (value: object) => JSON.stringify(value);
const assistant = (fields: object) =>
  line({ type: "message_end", message: { role: "assistant", ...fields } });

function parse(lines: string[]) {
  const calls: ToolCall[] = [];
  const logs: string[] = [];
  const parser = createPiStreamParser({
    onToolCall: (call) => calls.push(call),
    onLog: (message) => logs.push(message),
  });
  for (const text of lines) parser.line(text);
  return { result: parser.finish(), calls, logs };
}

describe("pi event stream parser", () => {
  it("names pattern tools by their pattern and fails a tool call the agent never finished", () => {
    const { result, calls } = parse([
      line({ type: "session", version: 3, id: "pi-1", cwd: "/w" }),
      '{"type":"message_update" this line is never parsed',
      line({
        type: "tool_execution_start",
        toolCallId: "t1",
        toolName: "grep",
        args: { pattern: "TODO", path: "src" },
      }),
      line({
        type: "tool_execution_end",
        toolCallId: "t1",
        toolName: "grep",
        result: { content: [{ type: "text", text: "src/a.ts:1: TODO" }] },
        isError: false,
      }),
      line({
        type: "tool_execution_start",
        toolCallId: "t2",
        toolName: "bash",
        args: { command: "sleep 100" },
      }),
      assistant({
        content: [{ type: "text", text: "done" }],
        stopReason: "stop",
        usage: { input: 5, output: 1, totalTokens: 6 },
      }),
    ]);
    expect(result).toMatchObject({ text: "done", nativeSessionId: "pi-1", contextTokens: 6 });
    expect(calls.map((call) => [call.name, call.ok, call.result])).toEqual([
      ["grep: TODO in src", true, "src/a.ts:1: TODO"],
      ["bash: sleep 100", false, "(no result: the agent ended during this call)"],
    ]);
  });

  it("decides from the last assistant message: a retried error succeeds, a final error fails", () => {
    const retried = parse([
      assistant({ content: [], stopReason: "error", errorMessage: "529 overloaded" }),
      line({
        type: "auto_retry_start",
        attempt: 1,
        maxAttempts: 3,
        delayMs: 2000,
        errorMessage: "529 overloaded",
      }),
      assistant({
        content: [{ type: "text", text: "a" }, { type: "thinking" }, { type: "text", text: "b" }],
      }),
    ]);
    expect(retried.result).toMatchObject({ text: "a\nb" });
    expect(retried.result.error).toBeUndefined();
    expect(retried.logs).toEqual(["pi retries the model call (attempt 1/3)"]);

    const failed = parse([assistant({ content: [], stopReason: "aborted" })]);
    expect(failed.result).toMatchObject({
      text: null,
      error: "pi reported a model error: the model call ended with stopReason aborted",
      contextTokens: null,
    });
    const silent = parse([]).result;
    expect(silent.text).toBeNull();
    expect(silent.error).toBeUndefined();
  });
});
