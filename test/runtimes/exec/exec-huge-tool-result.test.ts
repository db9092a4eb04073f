import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { execRuntime } from "../../../src/runtimes/exec/index.js";
import type { ToolCall } from "../../../src/runtimes/runtime.js";
import { TOOL_RESULT_MAX_CHARS } from "../../../src/runtimes/send-loop/tool-call-name.js";

let dir = "";
afterEach(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  dir = "";
});

// An sssf-exec/1 agent whose one tool call reports a result of BYTES (accented text, so the fast
// ASCII paths do not apply), then answers.
const AGENT = `
const bytes = Number(process.argv[2]);
process.stdin.resume();
process.stdin.on("end", () => {
  const result = "e\\u0301 ".repeat(Math.ceil(bytes / 4));
  process.stdout.write(JSON.stringify({ type: "tool_call", tool: "read", args: { path: "big.log" }, result, ok: true }) + "\\n");
  process.stdout.write(JSON.stringify({ type: "result", text: '{"status":"success"}' }) + "\\n");
});
`;

describe("an exec agent's multi-megabyte tool result", () => {
  it("is traced as a short snippet without stalling the send into its idle timeout", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sssf-huge-result-"));
    const agent = path.join(dir, "agent.cjs");
    writeFileSync(agent, AGENT);
    const calls: ToolCall[] = [];
    // 12 MB: the snippet used to take seconds per megabyte to cut, so this send hit its 5 s idle timeout.
    const result = await execRuntime.send(
      {
        adwId: "huge",
        agent: "reader",
        sessionId: "s",
        resume: false,
        sessionDir: path.join(dir, "exec_sessions"),
        rawOutputPath: path.join(dir, "raw_output.jsonl"),
        model: "",
        thinking: "off",
        tools: [],
        systemPrompt: "",
        prompt: "go",
        cwd: dir,
        command: [process.execPath, agent, String(12 * 1024 * 1024)],
        timeouts: { idleMs: 5000, wallMs: 60_000 },
      },
      { onToolCall: (call) => calls.push(call) },
    );
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.result.endsWith("…")).toBe(true);
    expect(calls[0]?.result.startsWith("e\u0301 e\u0301 ")).toBe(true);
    expect(Array.from(new Intl.Segmenter().segment(calls[0]?.result ?? ""))).toHaveLength(
      TOOL_RESULT_MAX_CHARS,
    );
  });
});
