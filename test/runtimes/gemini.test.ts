import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { geminiRuntime } from "../../src/runtimes/gemini/index.js";
import type { ProcessStart } from "../../src/runtimes/runtime.js";
import { recordingObserver } from "./cli-harness.js";
import {
  contentText,
  createGeminiWorld,
  declaredTools,
  type GeminiWorld,
  geminiContents,
  systemText,
} from "./gemini-world.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let world: GeminiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("gemini runtime against the real CLI", () => {
  it("continues a named session: the second send carries the first turn", async () => {
    world = await createGeminiWorld();
    const observer = recordingObserver();
    const first = await geminiRuntime.send(world.request({ prompt: "TURN-1 hello" }), observer);
    expect(first.error).toBeUndefined();
    expect(first.ok).toBe(true);
    expect(first.nativeSessionId).toMatch(UUID);
    expect(JSON.parse(first.text).markers).toEqual(["TURN-1"]);

    const second = await geminiRuntime.send(
      world.request({ prompt: "TURN-2 go on", resume: true, nativeSessionId: first.nativeSessionId }),
      observer,
    );
    expect(second.error).toBeUndefined();
    expect(second.nativeSessionId).toBe(first.nativeSessionId);
    expect(JSON.parse(second.text).markers).toEqual(["TURN-1", "TURN-2"]);

    const calls = world.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]?.path).toContain("/models/gemini-2.5-flash:streamGenerateContent");
    const history = geminiContents(calls[1]).map(contentText);
    expect(history.some((text) => text.includes("TURN-1 hello"))).toBe(true);
    expect(history).toContain(first.text);
    expect(history.at(-1)).toBe("TURN-2 go on");
    // The system prompt replaces gemini's own on every call; the allowlist decides the declared tools.
    expect(systemText(calls[1])).toBe("You are a test agent. Reply with JSON.");
    expect(declaredTools(calls[1]).sort()).toEqual([
      "read_file",
      "replace",
      "run_shell_command",
      "write_file",
    ]);
    expect(world.server.egress()).toEqual([]);
    expect(world.strayTmpFiles()).toEqual([]);
  }, 120_000);

  it("reports one tool call for a file the model writes", async () => {
    world = await createGeminiWorld({
      steps: [
        {
          match: { text: "WRITE_FILE", afterToolResult: false },
          writeFile: { path: "notes.md", content: "hello from gemini\n" },
        },
        { match: { afterToolResult: true }, reply: "wrote notes.md" },
      ],
    });
    const observer = recordingObserver();
    const result = await geminiRuntime.send(
      world.request({ prompt: "TURN-1 WRITE_FILE:notes.md", tools: ["read", "write"] }),
      observer,
    );
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("wrote notes.md");
    expect(readFileSync(path.join(world.work, "notes.md"), "utf8")).toBe("hello from gemini\n");
    expect(observer.toolCalls).toHaveLength(1);
    const call = observer.toolCalls[0];
    expect(call?.tool).toBe("write");
    expect(call?.name).toBe("write: notes.md");
    expect(call?.ok).toBe(true);
    expect(call?.args).toEqual({ file_path: "notes.md", content: "hello from gemini\n" });
    expect(call && call.endedAt.getTime() >= call.startedAt.getTime()).toBe(true);
    expect(declaredTools(world.calls()[0]).sort()).toEqual(["read_file", "write_file"]);
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("reports each send's own usage and the context after it", async () => {
    world = await createGeminiWorld({
      steps: [
        { match: { text: "TURN-1" }, usage: { input: 1000, output: 50, cacheRead: 200 } },
        { match: { text: "TURN-2" }, usage: { input: 3000, output: 70, cacheRead: 400 } },
      ],
    });
    const observer = recordingObserver();
    const first = await geminiRuntime.send(world.request({ prompt: "TURN-1 count" }), observer);
    const second = await geminiRuntime.send(
      world.request({ prompt: "TURN-2 count", resume: true }),
      observer,
    );
    expect(first.error ?? second.error).toBeUndefined();
    const scripted = [
      { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 200, cacheWriteTokens: 0, costUsd: 0 },
      { inputTokens: 3000, outputTokens: 70, cacheReadTokens: 400, cacheWriteTokens: 0, costUsd: 0 },
    ];
    expect([first.usage, second.usage]).toEqual(scripted);
    expect(observer.usages).toEqual(scripted);
    const total = observer.usages.reduce((sum, usage) => sum + usage.inputTokens + usage.cacheReadTokens, 0);
    expect(total).toBe(4600);
    expect(first.contextTokens).toBe(1250);
    expect(second.contextTokens).toBe(3470);
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("takes a 1 MB prompt on stdin, not in argv", async () => {
    world = await createGeminiWorld({ steps: [{ match: { text: "BIG-PROMPT" }, reply: "got it all" }] });
    const prompt = `BIG-PROMPT ${"0123456789abcdef".repeat(65_536)} END-OF-PROMPT`;
    const starts: ProcessStart[] = [];
    const result = await geminiRuntime.send(world.request({ prompt }), {
      onProcessStart: (start) => starts.push(start),
    });
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("got it all");
    expect(JSON.stringify(starts[0]?.command).length).toBeLessThan(2000);
    const parts = geminiContents(world.calls()[0]).at(-1)?.parts ?? [];
    expect(parts.some((part) => part.text === prompt)).toBe(true);
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("writes its system prompt and policy files into the session dir", async () => {
    world = await createGeminiWorld();
    const request = world.request({ prompt: "TURN-1 files", tools: [] });
    const result = await geminiRuntime.send(request, recordingObserver());
    expect(result.error).toBeUndefined();
    expect(readFileSync(path.join(request.sessionDir, "gemini-system.md"), "utf8")).toBe(
      request.systemPrompt,
    );
    expect(readFileSync(path.join(request.sessionDir, "gemini-policy.toml"), "utf8")).toContain(
      'toolName = "*"',
    );
    expect(existsSync(path.join(request.sessionDir, "tmp"))).toBe(true);
    expect(declaredTools(world.calls()[0])).toEqual([]);
  }, 120_000);
});
