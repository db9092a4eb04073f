import { describe, expect, it } from "vitest";
import { createClaudeStreamParser } from "../../src/runtimes/claude-code/events.js";
import { createCodexParser } from "../../src/runtimes/codex/events.js";
import { parseExecLine } from "../../src/runtimes/exec/protocol.js";
import { createGeminiParser } from "../../src/runtimes/gemini/events.js";
import { createOpencodeStreamParser } from "../../src/runtimes/opencode/events.js";
import { createPiStreamParser } from "../../src/runtimes/pi/events.js";
import { compactPiLine } from "../../src/runtimes/pi/stream-filter.js";
import type { AgentSendObserver, ToolStart } from "../../src/runtimes/runtime.js";
import type { CliStreamParser } from "../../src/runtimes/send-loop/cli-runtime.js";

const line = (value: object) => JSON.stringify(value);

/** An observer recording the live calls: the text as one string, the tool starts, and the ends. */
function live() {
  const seen = { text: "", starts: [] as ToolStart[], ends: [] as string[] };
  const observer: AgentSendObserver = {
    onText: (text) => {
      seen.text += text;
    },
    onToolStart: (call) => seen.starts.push(call),
    onToolCall: (call) => seen.ends.push(call.name),
  };
  return { seen, observer };
}

function feed(parser: CliStreamParser, lines: string[]) {
  for (const text of lines) parser.line(text);
  return parser.finish();
}

describe("live text and tool starts from each runtime's stream", () => {
  it("pi: streamed text deltas and tool_execution_start", () => {
    const { seen, observer } = live();
    const update = (delta: object) =>
      compactPiLine(
        line({ type: "message_update", message: {}, assistantMessageEvent: { ...delta, partial: {} } }),
      );
    const result = feed(createPiStreamParser(observer), [
      update({ type: "text_delta", contentIndex: 0, delta: "Let me " }),
      update({ type: "text_delta", contentIndex: 0, delta: "look." }),
      line({
        type: "message_end",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "Let me look." }],
          stopReason: "toolUse",
        },
      }),
      line({
        type: "tool_execution_start",
        toolCallId: "t1",
        toolName: "grep",
        args: { pattern: "TODO", path: "src" },
      }),
      line({ type: "tool_execution_end", toolCallId: "t1", toolName: "grep", result: "", isError: false }),
      line({
        type: "message_end",
        message: { role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop" },
      }),
    ]);
    expect(result.text).toBe("done");
    expect(seen.text).toBe("Let me look.\n\n");
    expect(seen.starts.map((s) => [s.tool, s.name])).toEqual([["grep", "grep: TODO in src"]]);
    expect(seen.ends).toEqual(["grep: TODO in src"]);
  });

  it("claude: each assistant text block, and tool_use blocks as they are sent", () => {
    const { seen, observer } = live();
    feed(createClaudeStreamParser({ observer, model: "" }), [
      line({
        type: "assistant",
        message: {
          id: "m1",
          content: [
            { type: "text", text: "Reading it." },
            { type: "tool_use", id: "u1", name: "Bash", input: { command: "ls" } },
          ],
        },
      }),
      line({
        type: "user",
        message: { content: [{ type: "tool_result", tool_use_id: "u1", content: "a" }] },
      }),
      line({ type: "assistant", message: { id: "m2", content: [{ type: "text", text: "Done." }] } }),
      line({ type: "result", subtype: "success", is_error: false, result: "Done.", usage: {} }),
    ]);
    expect(seen.text).toBe("Reading it.\nDone.\n");
    expect(seen.starts.map((s) => s.name)).toEqual(["bash: ls"]);
  });

  it("codex: agent messages and command items at item.started", () => {
    const { seen, observer } = live();
    const parser = createCodexParser({
      observer,
      cwd: "/w",
      model: "",
      modelHint: "",
      expectedThreadId: null,
      baseline: undefined,
      onThread() {},
    });
    feed(parser, [
      line({
        type: "item.started",
        item: { id: "i1", type: "command_execution", command: "bash -lc 'npm test'", status: "in_progress" },
      }),
      line({
        type: "item.completed",
        item: {
          id: "i1",
          type: "command_execution",
          command: "bash -lc 'npm test'",
          exit_code: 0,
          status: "completed",
        },
      }),
      line({ type: "item.completed", item: { id: "i2", type: "agent_message", text: "Tests pass." } }),
    ]);
    expect(seen.starts.map((s) => s.name)).toEqual(["bash: npm test"]);
    expect(seen.text).toBe("Tests pass.\n");
  });

  it("gemini: streamed deltas, a line break at each tool_use", () => {
    const { seen, observer } = live();
    feed(createGeminiParser(observer), [
      line({ type: "message", role: "assistant", content: "Check", delta: true }),
      line({ type: "message", role: "assistant", content: "ing.", delta: true }),
      line({
        type: "tool_use",
        tool_name: "run_shell_command",
        tool_id: "g1",
        parameters: { command: "ls" },
      }),
      line({ type: "tool_result", tool_id: "g1", status: "success", output: "a" }),
      line({ type: "message", role: "assistant", content: "Fine", delta: true }),
      line({ type: "result", status: "success", stats: {} }),
    ]);
    expect(seen.text).toBe("Checking.\nFine");
    expect(seen.starts.map((s) => s.name)).toEqual(["bash: ls"]);
  });

  it("opencode: text parts; tool calls only once they ended, so no tool start", () => {
    const { seen, observer } = live();
    feed(createOpencodeStreamParser(observer, null), [
      line({ type: "text", part: { text: "Editing." } }),
      line({
        type: "tool_use",
        part: {
          callID: "c1",
          tool: "bash",
          state: { status: "completed", input: { command: "ls" }, output: "a" },
        },
      }),
    ]);
    expect(seen.text).toBe("Editing.\n");
    expect(seen.starts).toEqual([]);
    expect(seen.ends).toEqual(["bash: ls"]);
  });

  it("exec: text and tool_start protocol lines", () => {
    expect(parseExecLine('{"type":"text","text":"hi "}')).toEqual({ type: "text", text: "hi " });
    expect(parseExecLine('{"type":"tool_start","tool":"bash","args":{"command":"ls"}}')).toEqual({
      type: "tool_start",
      tool: "bash",
      args: { command: "ls" },
    });
    expect(parseExecLine('{"type":"tool_start"}')).toEqual({ type: "tool_start", tool: "unknown", args: {} });
  });

  it("a throwing observer costs no parsing", () => {
    const observer: AgentSendObserver = {
      onText() {
        throw new Error("boom");
      },
      onToolStart() {
        throw new Error("boom");
      },
    };
    const result = feed(createClaudeStreamParser({ observer, model: "" }), [
      line({
        type: "assistant",
        message: {
          id: "m1",
          content: [
            { type: "text", text: "Hi." },
            { type: "tool_use", id: "u1", name: "Bash", input: { command: "ls" } },
          ],
        },
      }),
      line({ type: "result", subtype: "success", is_error: false, result: "Hi.", usage: {} }),
    ]);
    expect(result.text).toBe("Hi.");
  });
});
