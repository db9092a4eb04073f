import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  approvalModeFor,
  geminiPolicyToml,
  validateGeminiTools,
  workspaceArgs,
} from "../../../src/runtimes/gemini/args.js";
import { createGeminiParser, geminiUsage } from "../../../src/runtimes/gemini/events.js";
import { modelsFromBundleSource } from "../../../src/runtimes/gemini/models.js";
import {
  geminiSessionUuid,
  parseGeminiConversation,
  planGeminiSession,
} from "../../../src/runtimes/gemini/session.js";
import { stripJsonComments } from "../../../src/runtimes/gemini/settings.js";
import { recordingObserver } from "../cli-harness.js";

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

const line = (value: unknown) => JSON.stringify(value);

describe("gemini runtime helpers", () => {
  it("derives stable, distinct uuids per session and generation", () => {
    const first = geminiSessionUuid("sssf-a1-agent-0001");
    expect(first).toBe(geminiSessionUuid("sssf-a1-agent-0001", 0));
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(geminiSessionUuid("sssf-a1-agent-0001", 1)).not.toBe(first);
    expect(geminiSessionUuid("sssf-a1-agent-0002")).not.toBe(first);
  });

  it("replays a session file like gemini and tells resumable from dead sessions", () => {
    scratch = mkdtempSync(path.join(tmpdir(), "sssf-gemini-units-"));
    const cwd = path.join(scratch, "work");
    mkdirSync(cwd);
    const chats = path.join(scratch, ".gemini/tmp/work/chats");
    mkdirSync(chats, { recursive: true });
    const projectHash = createHash("sha256").update(cwd).digest("hex");
    const context = { id: "c", type: "user", content: [{ text: "<session_context>\nstuff" }] };
    const dead = geminiSessionUuid("s", 0);
    writeFileSync(
      path.join(chats, `session-2026-01-01T00-00-${dead.slice(0, 8)}.jsonl`),
      [
        line({ sessionId: dead, projectHash, kind: "main" }),
        line({ $set: { messages: [context] } }),
        line({ id: "u1", type: "user", content: [{ text: "TURN-1" }] }),
        line({ $set: { messages: [context] } }),
      ].join("\n"),
    );
    const parsed = parseGeminiConversation(
      [
        line({ sessionId: "x", projectHash }),
        line({ id: "a", type: "user", content: "hi" }),
        line({ $rewindTo: "a" }),
      ].join("\n"),
    );
    expect(parsed.messages).toEqual([]);
    expect(
      planGeminiSession({ geminiDir: path.join(scratch, ".gemini"), cwd, sessionId: "s", resume: true }),
    ).toEqual({
      uuid: geminiSessionUuid("s", 1),
      resume: false,
      note: expect.stringContaining("no resumable turn"),
    });
    const live = geminiSessionUuid("s", 1);
    writeFileSync(
      path.join(chats, `session-2026-01-01T00-01-${live.slice(0, 8)}.jsonl`),
      [
        line({ sessionId: live, projectHash }),
        line({ id: "g", type: "gemini", content: "ok", tokens: { total: 9 } }),
      ].join("\n"),
    );
    expect(
      planGeminiSession({ geminiDir: path.join(scratch, ".gemini"), cwd, sessionId: "s", resume: true }),
    ).toEqual({
      uuid: live,
      resume: true,
    });
    // The same id made in another project is not this project's session.
    expect(
      planGeminiSession({
        geminiDir: path.join(scratch, ".gemini"),
        cwd: scratch,
        sessionId: "s",
        resume: false,
      }),
    ).toEqual({ uuid: dead, resume: false });
  });

  it("maps tools to a deny-all-but policy and an approval mode", () => {
    expect(validateGeminiTools(["read", "bash", "edit", "write", "grep", "find", "ls"])).toBeNull();
    expect(validateGeminiTools(["read", "web"])).toContain('unknown tool "web"');
    expect(geminiPolicyToml([])).not.toContain('decision = "allow"');
    expect(geminiPolicyToml(["read", "write"])).toContain('toolName = ["read_file", "write_file"]');
    expect(approvalModeFor([])).toBe("default");
    expect(approvalModeFor(["read", "edit"])).toBe("auto_edit");
    expect(approvalModeFor(["bash", "write"])).toBe("yolo");
    expect(workspaceArgs("/d/context_handoff")).toEqual(["--include-directories", "/d/context_handoff"]);
    expect(workspaceArgs(undefined)).toEqual([]);
  });

  it("reads the model catalog from a bundle and settings with comments", () => {
    const bundle = [
      "var DEFAULT_MODEL_CONFIGS = {",
      "  aliases: {",
      '    "gemini-x-flash": {',
      '      extends: "chat-base-3",',
      "      modelConfig: {",
      '        model: "gemini-x-flash"',
      "      }",
      "    },",
      "  },",
      "  modelDefinitions: {",
      '    "gemini-y-pro": {',
      '      tier: "pro",',
      "      features: { thinking: true }",
      "    },",
      "    auto: {",
      '      tier: "auto"',
      "    }",
      "  },",
      "  modelIdResolutions: {",
    ].join("\n");
    expect(modelsFromBundleSource(bundle)?.sort()).toEqual(["auto", "gemini-x-flash", "gemini-y-pro"]);
    expect(modelsFromBundleSource("no catalog here")).toBeNull();
    expect(JSON.parse(stripJsonComments('{ // c\n "a": "http://x", /* b */ "b": 1 }'))).toEqual({
      a: "http://x",
      b: 1,
    });
  });

  it("parses the stream: deltas after the last tool, one tool call, usage with thoughts as output", () => {
    const observer = recordingObserver();
    const parser = createGeminiParser(observer, { sessionId: "planned", contextTokens: () => 42 });
    const events = [
      { type: "init", session_id: "real-id", model: "m" },
      { type: "message", role: "user", content: "TURN-1" },
      { type: "message", role: "assistant", content: "Let me ", delta: true },
      { type: "message", role: "assistant", content: "look.", delta: true },
      {
        type: "tool_use",
        timestamp: "2026-01-01T00:00:01Z",
        tool_name: "run_shell_command",
        tool_id: "t1",
        parameters: { command: "ls -la" },
      },
      {
        type: "tool_result",
        timestamp: "2026-01-01T00:00:03Z",
        tool_id: "t1",
        status: "success",
        output: "README.md",
      },
      { type: "message", role: "assistant", content: "done", delta: true },
      {
        type: "result",
        status: "success",
        stats: { total_tokens: 130, input_tokens: 100, output_tokens: 20, cached: 40, input: 60 },
      },
    ];
    for (const event of events) parser.line(JSON.stringify(event));
    const result = parser.finish();
    expect(result).toMatchObject({ text: "done", nativeSessionId: "real-id", contextTokens: 42 });
    expect(result.error).toBeUndefined();
    expect(result.usage).toEqual({
      inputTokens: 60,
      outputTokens: 30,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      costUsd: 0,
    });
    expect(observer.toolCalls).toHaveLength(1);
    expect(observer.toolCalls[0]).toMatchObject({
      tool: "bash",
      name: "bash: ls -la",
      ok: true,
      result: "README.md",
    });
    const call = observer.toolCalls[0];
    expect(call && call.endedAt.getTime() - call.startedAt.getTime()).toBe(2000);
    expect(geminiUsage(undefined).inputTokens).toBe(0);
  });

  it("turns an error result into an error, using the last error event when the result has none", () => {
    const parser = createGeminiParser(recordingObserver(), { sessionId: "planned" });
    parser.line(
      JSON.stringify({
        type: "error",
        severity: "error",
        message: "Model stream ended with an empty response",
      }),
    );
    parser.line(JSON.stringify({ type: "result", status: "error", stats: {} }));
    expect(parser.finish()).toMatchObject({
      text: null,
      nativeSessionId: "planned",
      error: "Model stream ended with an empty response",
      errorKind: "agent_error",
    });
    const notFound = createGeminiParser(recordingObserver());
    notFound.line(
      JSON.stringify({
        type: "result",
        status: "error",
        error: { type: "x", message: "models/gemini-zz is not found for API version v1beta" },
      }),
    );
    expect(notFound.finish().errorKind).toBe("model_unknown");
  });
});
