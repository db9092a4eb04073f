import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  claudeArgs,
  sssfToolName,
  validateClaudeCodeSettings,
} from "../../../src/runtimes/claude-code/args.js";
import { createClaudeStreamParser } from "../../../src/runtimes/claude-code/events.js";
import {
  claudeProjectSlug,
  claudeSessionUuid,
  claudeTranscriptPath,
  planClaudeSession,
} from "../../../src/runtimes/claude-code/session.js";
import type { AgentSendRequest, ToolCall, Usage } from "../../../src/runtimes/runtime.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("claude_code sessions", () => {
  it("names project folders the way claude 2.1.332 does", () => {
    expect(claudeProjectSlug("/tmp/cc-explore/work")).toBe("-tmp-cc-explore-work");
    expect(claudeProjectSlug("/tmp/cc-explore/w.x_y z-é")).toBe("-tmp-cc-explore-w-x-y-z--");
    // Measured: claude cut this 262-character path at 200 characters and appended its hash.
    const long = `/tmp/cc-explore/w.x_y z-é/${"a".repeat(120)}/${"b".repeat(120)}`;
    expect(claudeProjectSlug(long)).toBe(
      `-tmp-cc-explore-w-x-y-z---${"a".repeat(120)}-${"b".repeat(53)}-3313n5`,
    );
  });

  it("derives one stable UUID per sssf session name", () => {
    const uuid = claudeSessionUuid("sssf-a1b2c3d4-agent-0001");
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(claudeSessionUuid("sssf-a1b2c3d4-agent-0001")).toBe(uuid);
    expect(claudeSessionUuid("sssf-a1b2c3d4-agent-0002")).not.toBe(uuid);
  });

  it("continues a transcript left by an earlier attempt, and says so", () => {
    const root = mkdtempSync(path.join(tmpdir(), "sssf-claude-plan-"));
    dirs.push(root);
    const cwd = path.join(root, "work");
    mkdirSync(cwd);
    const env = { HOME: root, CLAUDE_CONFIG_DIR: "" };
    const request = { sessionId: "s-1", resume: false, cwd, env, sessionDir: path.join(root, "sessions") };
    const fresh = planClaudeSession(request as unknown as AgentSendRequest);
    expect(fresh).toMatchObject({ ok: true, resume: false, notes: [] });
    const transcript = claudeTranscriptPath(path.join(root, ".claude"), cwd, claudeSessionUuid("s-1"));
    mkdirSync(path.dirname(transcript), { recursive: true });
    writeFileSync(transcript, "{}\n");
    const again = planClaudeSession(request as unknown as AgentSendRequest);
    expect(again).toMatchObject({ ok: true, resume: true, transcript });
    expect(again.ok && again.notes[0]).toContain("earlier attempt");
  });
});

describe("claude_code argv", () => {
  it("uses --flag=value everywhere and never carries the prompt", () => {
    const args = claudeArgs({
      uuid: "u-1",
      resume: true,
      model: "sonnet",
      thinking: "high",
      tools: ["read", "find", "ls", "bash"],
      systemPromptFile: "/s/system.md",
    });
    expect(args).toContain("--resume=u-1");
    expect(args).toContain("--tools=Read,Glob,Bash");
    expect(args).toContain("--allowedTools=Read,Glob,Bash");
    expect(args).toContain("--system-prompt-file=/s/system.md");
    expect(args.filter((arg) => arg.startsWith("--") && !arg.includes("="))).toEqual([
      "--verbose",
      "--strict-mcp-config",
    ]);
    const none = claudeArgs({
      uuid: "u-2",
      resume: false,
      model: "",
      thinking: "off",
      tools: [],
      systemPromptFile: "/f",
    });
    expect(none).toContain("--session-id=u-2");
    expect(none).toContain("--tools=");
    expect(none.some((arg) => arg.startsWith("--allowedTools") || arg.startsWith("--model"))).toBe(false);
    expect(none.some((arg) => arg.startsWith("--add-dir"))).toBe(false);
  });

  it("keeps file-tool writes in the working directories, of which --add-dir makes the handoff folder one", () => {
    const args = claudeArgs({
      uuid: "u-3",
      resume: false,
      model: "",
      thinking: "off",
      tools: ["write"],
      systemPromptFile: "/f",
      contextHandoffDir: "/d/sessions/a1/context_handoff",
    });
    expect(args).toContain("--add-dir=/d/sessions/a1/context_handoff");
    const settings = args.find((arg) => arg.startsWith("--settings="))?.slice("--settings=".length);
    expect(JSON.parse(settings ?? "{}")).toEqual({
      permissions: { blockWritesOutsideWorkingDirectories: true },
    });
    expect(args).toContain("--permission-mode=dontAsk");
  });

  it("validates tools and model names", () => {
    expect(validateClaudeCodeSettings({ model: "", tools: ["read", "ls"] })).toEqual([]);
    expect(validateClaudeCodeSettings({ model: "my-gateway/any-model", tools: [] })).toEqual([]);
    expect(validateClaudeCodeSettings({ model: "--help", tools: [] })[0]?.kind).toBe("model_unknown");
    expect(validateClaudeCodeSettings({ model: "son net", tools: [] })[0]?.kind).toBe("model_unknown");
    const tools = validateClaudeCodeSettings({ model: "", tools: ["Read"] });
    expect(tools[0]).toMatchObject({ kind: "spawn_failed" });
    expect(sssfToolName("Glob")).toBe("find");
    expect(sssfToolName("Task")).toBe("Task");
  });
});

describe("claude_code stream parser", () => {
  const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });

  it("reports this invocation's cost when claude's totals are cumulative", () => {
    const calls: ToolCall[] = [];
    const usages: Usage[] = [];
    const parser = createClaudeStreamParser({
      observer: { onToolCall: (call) => calls.push(call), onUsage: (one) => usages.push(one) },
      model: "",
    });
    const lines = [
      { type: "system", subtype: "init", session_id: "sid", model: "claude-x" },
      {
        type: "assistant",
        timestamp: "2026-01-01T00:00:01.000Z",
        message: {
          id: "m1",
          model: "claude-x",
          usage: usage(10, 1),
          content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls -la" } }],
        },
      },
      {
        type: "user",
        timestamp: "2026-01-01T00:00:03.000Z",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "a\nb" }] }],
        },
      },
      {
        type: "assistant",
        message: {
          id: "m2",
          model: "claude-x",
          usage: usage(25, 1),
          content: [{ type: "text", text: "done" }],
        },
      },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        result: "done",
        usage: usage(35, 9),
        total_cost_usd: 0.5,
        model_usage_since_last_result: { "claude-x": { costUSD: 0.125 } },
      },
    ];
    for (const line of lines) parser.line(JSON.stringify(line));
    const result = parser.finish();
    expect(result).toMatchObject({ text: "done", nativeSessionId: "sid", contextTokens: 25 });
    expect(result.usage).toEqual({
      inputTokens: 35,
      outputTokens: 9,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.125,
    });
    expect(usages).toEqual([result.usage]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ tool: "bash", name: "bash: ls -la", ok: true, result: "a\nb" });
    expect((calls[0]?.endedAt.getTime() ?? 0) - (calls[0]?.startedAt.getTime() ?? 0)).toBe(2000);
  });

  it("treats is_error as a failure whatever the subtype, and keeps snapshots when no result came", () => {
    const failed = createClaudeStreamParser({ observer: {}, model: "claude-x" });
    failed.line(
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: true,
        result: "API Error: 500 boom",
        api_error_status: 500,
      }),
    );
    expect(failed.finish()).toMatchObject({
      text: null,
      error: "claude reported an error (API status 500): API Error: 500 boom",
    });

    const cut = createClaudeStreamParser({ observer: {}, model: "" });
    cut.line(
      JSON.stringify({
        type: "assistant",
        message: { id: "m1", model: "x", usage: usage(7, 1), content: [] },
      }),
    );
    cut.line(
      JSON.stringify({
        type: "assistant",
        message: {
          id: "m1",
          model: "x",
          usage: usage(7, 1),
          content: [{ type: "tool_use", id: "t", name: "Read", input: { file_path: "a" } }],
        },
      }),
    );
    const result = cut.finish();
    expect(result.text).toBeNull();
    expect(result.usage.inputTokens).toBe(7);
  });
});
