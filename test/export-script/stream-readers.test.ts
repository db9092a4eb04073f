/**
 * export-script's readers on the streams of the CLIs the round trips do not drive (gemini, opencode,
 * codex's rollout), in the shapes their runtimes parse (test/runtimes/*-units), and claude's
 * grouping of one response's blocks: each becomes the steps that play the same turns.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportScript } from "../../src/export-script/export-script.js";

let sessions = "";
beforeEach(() => {
  sessions = mkdtempSync(path.join(tmpdir(), "sssf-readers-"));
});
afterEach(() => rmSync(sessions, { recursive: true, force: true }));

/** A session `adwId` whose one agent `agent` ran `codingAgent` and wrote `lines` to raw_output.jsonl. */
function session(
  adwId: string,
  codingAgent: string,
  lines: unknown[],
  files: Record<string, unknown[]> = {},
) {
  const agentDir = path.join(sessions, adwId, "worker");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    path.join(sessions, adwId, "agent_map.json"),
    JSON.stringify({ worker: { session_id: "s", model: "", coding_agent: codingAgent } }),
  );
  writeFileSync(
    path.join(agentDir, "raw_output.jsonl"),
    `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
  );
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(agentDir, relative)), { recursive: true });
    writeFileSync(path.join(agentDir, relative), content.map((line) => JSON.stringify(line)).join("\n"));
  }
}

const steps = (adwId: string) => exportScript({ sessionsDir: sessions, adwId }).script.steps;
const match = { hasTools: true };

describe("export-script readers", () => {
  it("gemini stream-json: text and calls per response, the send's tokens on its last", () => {
    session("a1", "gemini", [
      { type: "init", session_id: "g1", model: "gemini-2.5-pro" },
      { type: "message", role: "user", content: "do it" },
      { type: "message", role: "assistant", content: "Writing", delta: true },
      { type: "message", role: "assistant", content: " it.", delta: true },
      {
        type: "tool_use",
        tool_name: "write_file",
        tool_id: "t1",
        parameters: { file_path: "a.txt", content: "A\n" },
      },
      { type: "tool_result", tool_id: "t1", status: "success", output: "ok" },
      { type: "message", role: "assistant", content: '{"status": "success"}', delta: true },
      {
        type: "result",
        status: "success",
        stats: { input_tokens: 500, cached: 100, output_tokens: 20, total_tokens: 520 },
      },
    ]);
    expect(steps("a1")).toEqual([
      {
        match,
        reply: "Writing it.",
        tool: { name: "write_file", args: { file_path: "a.txt", content: "A\n" } },
      },
      { match, reply: '{"status": "success"}', usage: { input: 400, output: 20, cacheRead: 100 } },
    ]);
  });

  it("opencode json: one step per response with its tokens, two calls of one response as two steps", () => {
    const finish = (reason: string, input: number) => ({
      type: "step_finish",
      sessionID: "o1",
      part: { reason, tokens: { input, output: 5, cache: { read: 7, write: 0 } } },
    });
    session("a2", "opencode", [
      { type: "step_start", sessionID: "o1", part: {} },
      {
        type: "tool_use",
        sessionID: "o1",
        part: { tool: "write", state: { status: "completed", input: { filePath: "a", content: "1" } } },
      },
      {
        type: "tool_use",
        sessionID: "o1",
        part: { tool: "bash", state: { status: "completed", input: { command: "ls" } } },
      },
      finish("tool-calls", 100),
      { type: "step_start", sessionID: "o1", part: {} },
      { type: "text", sessionID: "o1", part: { text: '{"status": "success"}' } },
      finish("stop", 200),
    ]);
    expect(steps("a2")).toEqual([
      {
        match,
        tool: { name: "write", args: { filePath: "a", content: "1" } },
        usage: { input: 100, output: 5, cacheRead: 7, cacheWrite: 0 },
      },
      { match, tool: { name: "bash", args: { command: "ls" } } },
      {
        match,
        reply: '{"status": "success"}',
        usage: { input: 200, output: 5, cacheRead: 7, cacheWrite: 0 },
      },
    ]);
  });

  it("codex: the rollout under codex_sessions/ holds the arguments its --json stream lacks", () => {
    const item = (payload: Record<string, unknown>) => ({ type: "response_item", payload });
    const tokens = (input: number, cached: number) => ({
      type: "event_msg",
      payload: {
        type: "token_count",
        info: { last_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: 9 } },
      },
    });
    session(
      "a3",
      "codex",
      [
        { type: "thread.started", thread_id: "t1" },
        {
          type: "item.completed",
          item: { id: "i1", type: "file_change", changes: [{ path: "a.txt", kind: "add" }] },
        },
      ],
      {
        "codex_sessions/sessions/2026/12/07/rollout-2026-12-07T08-00-00-t1.jsonl": [
          { type: "session_meta", payload: { id: "t1" } },
          { type: "event_msg", payload: { type: "user_message", message: "do it" } },
          item({
            type: "custom_tool_call",
            name: "apply_patch",
            call_id: "c1",
            input: "*** Begin Patch\n*** Add File: a.txt\n+A\n*** End Patch\n",
          }),
          tokens(1000, 200),
          item({ type: "custom_tool_call_output", call_id: "c1", output: "Success" }),
          item({
            type: "function_call",
            name: "exec_command",
            arguments: JSON.stringify({ cmd: "ls" }),
            call_id: "c2",
          }),
          tokens(1100, 900),
          item({ type: "function_call_output", call_id: "c2", output: "a.txt" }),
          item({
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text: '{"status": "success"}' }],
          }),
          tokens(1200, 1000),
        ],
      },
    );
    expect(steps("a3")).toEqual([
      {
        match,
        tool: {
          name: "apply_patch",
          args: { input: "*** Begin Patch\n*** Add File: a.txt\n+A\n*** End Patch\n" },
        },
        usage: { input: 800, output: 9, cacheRead: 200 },
      },
      {
        match,
        tool: { name: "exec_command", args: { cmd: "ls" } },
        usage: { input: 200, output: 9, cacheRead: 900 },
      },
      { match, reply: '{"status": "success"}', usage: { input: 200, output: 9, cacheRead: 1000 } },
    ]);
  });

  it("codex without its rollout: says the stream lacks the arguments", () => {
    session("a4", "codex", [{ type: "thread.started", thread_id: "t1" }]);
    const exported = exportScript({ sessionsDir: sessions, adwId: "a4" });
    expect(exported.script.steps).toEqual([]);
    expect(exported.agents[0]?.missing).toContain("codex rollout files are missing under");
  });

  it("claude stream-json: one response's blocks grouped by message id, its own synthetic messages left out", () => {
    const assistant = (id: string, content: unknown[], model = "claude-sonnet-4-5") => ({
      type: "assistant",
      message: {
        id,
        model,
        content,
        usage: {
          input_tokens: 50,
          output_tokens: 1,
          cache_read_input_tokens: 30,
          cache_creation_input_tokens: 4,
        },
      },
    });
    session("a5", "claude_code", [
      { type: "system", subtype: "init", session_id: "c" },
      assistant("m1", [{ type: "text", text: "Two files." }]),
      assistant("m1", [
        { type: "tool_use", id: "u1", name: "Write", input: { file_path: "a", content: "1" } },
      ]),
      assistant("m1", [
        { type: "tool_use", id: "u2", name: "Write", input: { file_path: "b", content: "2" } },
      ]),
      { type: "user", message: { content: [{ type: "tool_result", tool_use_id: "u1" }] } },
      assistant("m2", [
        { type: "tool_use", id: "u3", name: "StructuredOutput", input: { status: "success" } },
      ]),
      assistant("m3", [{ type: "text", text: "API Error: overloaded" }], "<synthetic>"),
      { type: "result", subtype: "success" },
    ]);
    const usage = { input: 50, output: 1, cacheRead: 30, cacheWrite: 4 };
    const exported = exportScript({ sessionsDir: sessions, adwId: "a5" });
    expect(exported.script.steps).toEqual([
      { match, reply: "Two files.", tool: { name: "Write", args: { file_path: "a", content: "1" } }, usage },
      { match, tool: { name: "Write", args: { file_path: "b", content: "2" } } },
      { match, structured: { status: "success" }, usage },
    ]);
    expect(exported.notes).toContain("worker: left out a message claude made up itself (<synthetic>)");
  });
});

describe("export-script's order across agents", () => {
  /** pi's stream of one send per reply: a session line, then one assistant message each. */
  const piSends = (...replies: string[]) =>
    replies.flatMap((reply) => [
      { type: "session", version: 3, id: "p" },
      {
        type: "message_end",
        message: {
          role: "assistant",
          content: [{ type: "text", text: reply }],
          usage: { input: 1, output: 1 },
        },
      },
    ]);
  const span = (id: string, agent: string, phase: string, startedAt: string, endedAt: string) => ({
    table: "events",
    row: { id, type: "agent_start", agent, phase_id: phase, started_at: startedAt, ended_at: endedAt },
  });

  it("plays the sends in the order the trace started them, and says when they overlapped", () => {
    const root = path.join(sessions, "b1");
    for (const [agent, replies] of [
      ["spec", ["spec 1", "spec 2"]],
      ["design", ["design 1"]],
    ] as const) {
      mkdirSync(path.join(root, agent), { recursive: true });
      writeFileSync(
        path.join(root, agent, "raw_output.jsonl"),
        piSends(...replies)
          .map((l) => JSON.stringify(l))
          .join("\n"),
      );
    }
    writeFileSync(
      path.join(root, "agent_map.json"),
      JSON.stringify({ spec: { coding_agent: "pi" }, design: { coding_agent: "pi" } }),
    );
    const rows = [
      { table: "sessions", row: { adw_id: "b1", workflow: "sdd", request: "r" } },
      { table: "phases", row: { id: "b1-p04", number: 4, name: "spec" } },
      { table: "phases", row: { id: "b1-p05", number: 5, name: "design" } },
      span("e1", "spec", "b1-p04", "2026-12-07T08:00:00.000Z", "2026-12-07T08:00:05.000Z"),
      span("e2", "design", "b1-p05", "2026-12-07T08:00:01.000Z", "2026-12-07T08:00:03.000Z"),
      span("e3", "spec", "b1-p04", "2026-12-07T08:00:06.000Z", "2026-12-07T08:00:07.000Z"),
    ];
    writeFileSync(path.join(root, "events.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n"));
    const exported = exportScript({ sessionsDir: sessions, adwId: "b1" });
    expect(exported.script.steps.map((step) => step.reply)).toEqual(["spec 1", "design 1", "spec 2"]);
    expect(exported.workflow).toBe("sdd");
    expect(exported.notes).toContain(
      "sends overlapped in time (p04 spec (spec) ∥ p05 design (design)): the script plays them in the order they started; a re-run whose parallel sends start in another order gets another agent's answer",
    );
  });
});
