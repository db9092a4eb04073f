import { describe, expect, it } from "vitest";
import { getRuntime, registeredRuntimeIds, registerRuntime } from "../../../src/library.js";
import { toToolCall } from "../../../src/runtimes/exec/index.js";
import { parseExecLine } from "../../../src/runtimes/exec/protocol.js";
import { emptyUsage } from "../../../src/runtimes/runtime.js";
import { createLineSplitter } from "../../../src/runtimes/send-loop/line-splitter.js";
import { toolCallName, toolResultSnippet } from "../../../src/runtimes/send-loop/tool-call-name.js";

describe("parseExecLine", () => {
  it("ignores non-JSON, non-objects and unknown types", () => {
    for (const line of ["hello", "{broken", "[1,2]", '"text"', '{"type":"mystery"}', "{}"]) {
      expect(parseExecLine(line)).toBeNull();
    }
  });

  it("fills neutral defaults for missing fields", () => {
    expect(parseExecLine('{"type":"tool_call","tool":"read"}')).toEqual({
      type: "tool_call",
      tool: "read",
      args: {},
      result: "",
      ok: true,
      duration_ms: 0,
    });
    expect(parseExecLine('{"type":"usage","input_tokens":3}')).toMatchObject({ input_tokens: 3, cost: 0 });
    expect(parseExecLine('{"type":"result","text":"hi","error":"bad"}')).toEqual({
      type: "result",
      text: "hi",
      error: "bad",
    });
  });
});

describe("tool call normalization", () => {
  it("derives start and end from the arrival time and duration", () => {
    const arrived = new Date("2025-01-01T00:00:10.000Z");
    const call = toToolCall(
      {
        type: "tool_call",
        tool: "bash",
        args: { cmd: "npm test" },
        result: "ok",
        ok: true,
        duration_ms: 2500,
      },
      arrived,
    );
    expect(call.name).toBe("bash: npm test");
    expect(call.endedAt).toEqual(arrived);
    expect(call.startedAt).toEqual(new Date("2025-01-01T00:00:07.500Z"));
  });

  it("takes the stamps a line gives, an instant's one stamp for both ends", () => {
    const arrived = new Date("2025-01-01T00:01:00.000Z");
    const line = { type: "tool_call", tool: "bash", args: {}, result: "", ok: true, duration_ms: 5 } as const;
    const at = "2025-01-01T00:00:01.250Z";
    const instant = toToolCall({ ...line, started_at: at, ended_at: at }, arrived);
    expect([instant.startedAt.toISOString(), instant.endedAt.toISOString()]).toEqual([at, at]);
    const span = toToolCall({ ...line, started_at: at, ended_at: "2025-01-01T00:00:02.000Z" }, arrived);
    expect(span.endedAt.toISOString()).toBe("2025-01-01T00:00:02.000Z");
    // Unreadable stamps, the same on both ends: the end is the arrival, the start the duration before it.
    const unreadable = toToolCall({ ...line, started_at: "soon", ended_at: "soon" }, arrived);
    expect([unreadable.startedAt.toISOString(), unreadable.endedAt]).toEqual([
      "2025-01-01T00:00:59.995Z",
      arrived,
    ]);
  });

  it("gives each call a Date of its own when lines repeat a stamp, and parses a changed stamp again", () => {
    const arrived = new Date("2025-01-01T00:01:00.000Z");
    const line = { type: "tool_call", tool: "bash", args: {}, result: "", ok: true, duration_ms: 0 } as const;
    const at = "2025-01-01T00:00:01.250Z";
    const first = toToolCall({ ...line, started_at: at, ended_at: at }, arrived);
    // A caller changing its Date must not change the next call's.
    first.startedAt.setTime(0);
    const second = toToolCall({ ...line, started_at: at, ended_at: at }, arrived);
    expect(second.startedAt.toISOString()).toBe(at);
    expect(second.startedAt).not.toBe(first.startedAt);
    const later = toToolCall({ ...line, started_at: "2025-01-01T00:00:03.000Z" }, arrived);
    expect(later.startedAt.toISOString()).toBe("2025-01-01T00:00:03.000Z");
    const unreadable = toToolCall({ ...line, started_at: "soon" }, arrived);
    expect(unreadable.startedAt).toEqual(arrived);
    expect(toToolCall({ ...line, started_at: at }, arrived).startedAt.toISOString()).toBe(at);
  });

  it("renders short names and snippets", () => {
    expect(toolCallName("read", { file_path: "src/a.ts" })).toBe("read: src/a.ts");
    expect(toolCallName("bash", { command: "echo a\n  && echo b" })).toBe("bash: echo a && echo b");
    expect(toolCallName("todo", {})).toBe("todo");
    expect(toolCallName("grep", { pattern: "x" })).toBe('grep: {"pattern":"x"}');
    const long = toolCallName("bash", { command: "y".repeat(500) });
    expect(long).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
    expect(toolResultSnippet("z".repeat(10_000))).toHaveLength(2000);
  });
});

describe("createLineSplitter", () => {
  it("joins split chunks, drops blank lines and CRs, flushes the last line", () => {
    const lines: string[] = [];
    const splitter = createLineSplitter((batch) => lines.push(...batch));
    for (const chunk of ["al", "pha\nbe", "ta\r\n\n  \ngam", "ma"]) splitter.push(chunk);
    expect(lines).toEqual(["alpha", "beta"]);
    splitter.end();
    expect(lines).toEqual(["alpha", "beta", "gamma"]);
  });
});

describe("runtime registry", () => {
  it("registers exec and lets users add or replace runtimes", () => {
    expect(registeredRuntimeIds()).toContain("exec");
    expect(getRuntime("exec")?.specVersion).toBe("sssf-runtime/1");
    expect(getRuntime("nope")).toBeUndefined();
    const echo = {
      id: "echo-test",
      specVersion: "sssf-runtime/1" as const,
      send: async () => ({ ok: true, text: "echo", usage: emptyUsage(), contextTokens: null }),
    };
    registerRuntime(echo);
    expect(getRuntime("echo-test")).toBe(echo);
    const replacement = { ...echo };
    registerRuntime(replacement);
    expect(getRuntime("echo-test")).toBe(replacement);
    expect(registeredRuntimeIds().filter((id) => id === "echo-test")).toHaveLength(1);
  });
});
