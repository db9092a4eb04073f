import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeCodeRuntime } from "../../src/runtimes/claude-code/index.js";
import { claudeSessionUuid, claudeTranscriptPath } from "../../src/runtimes/claude-code/session.js";
import {
  anthropicBody,
  type ClaudeWorld,
  claudeBinary,
  createClaudeWorld,
  offeredTools,
  systemText,
  userTexts,
} from "./claude-code-world.js";
import { recordingObserver } from "./cli-harness.js";

let world: ClaudeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const markersOf = (text: string): string[] => (JSON.parse(text) as { markers: string[] }).markers;

describe("claude_code runtime against the fake model", () => {
  it("continues one conversation across two sends, with this call's system prompt", async () => {
    world = await createClaudeWorld();
    writeFileSync(path.join(world.work, "CLAUDE.md"), "CLAUDE-MD-MARKER: repo instructions sssf keeps out\n");
    const first = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-1 hello", systemPrompt: "SYSTEM-ONE be brief" }),
      recordingObserver(),
    );
    expect(first.ok, first.error).toBe(true);
    expect(markersOf(first.text)).toEqual(["TURN-1"]);
    expect(first.nativeSessionId).toBe(claudeSessionUuid("sssf-a1b2c3d4-agent-0001"));
    const transcript = claudeTranscriptPath(
      path.join(world.home, ".claude"),
      world.work,
      first.nativeSessionId ?? "",
    );
    expect(existsSync(transcript)).toBe(true);

    const second = await claudeCodeRuntime.send(
      world.request({
        prompt: "TURN-2 go on",
        systemPrompt: "SYSTEM-TWO be brief",
        resume: true,
        nativeSessionId: first.nativeSessionId,
      }),
      recordingObserver(),
    );
    expect(second.ok, second.error).toBe(true);
    expect(markersOf(second.text)).toEqual(["TURN-1", "TURN-2"]);
    expect(second.nativeSessionId).toBe(first.nativeSessionId);

    const calls = world.calls();
    expect(calls).toHaveLength(2);
    expect(systemText(calls[0])).toContain("SYSTEM-ONE");
    // claude records the first system prompt unless told not to; sssf sends the current one every time.
    expect(systemText(calls[1])).toContain("SYSTEM-TWO");
    expect(systemText(calls[1])).not.toContain("SYSTEM-ONE");
    const users = userTexts(calls[1]);
    expect(users.some((text) => text.includes("TURN-1 hello"))).toBe(true);
    expect(users.at(-1)).toContain("TURN-2 go on");
    expect(JSON.stringify(calls)).not.toContain("CLAUDE-MD-MARKER");
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("reports one tool call for a file the model writes", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false, hasTools: true },
          writeFile: { path: "notes.md", content: "hello from claude\n" },
        },
        { match: { afterToolResult: true }, reply: "wrote notes.md" },
      ],
    });
    const observer = recordingObserver();
    const result = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-1 write the notes" }),
      observer,
    );
    expect(result.ok, result.error).toBe(true);
    expect(result.text).toBe("wrote notes.md");
    expect(readFileSync(path.join(world.work, "notes.md"), "utf8")).toBe("hello from claude\n");
    expect(observer.toolCalls).toHaveLength(1);
    const call = observer.toolCalls[0];
    expect(call?.tool).toBe("write");
    expect(call?.name).toBe("write: notes.md");
    expect(call?.ok).toBe(true);
    expect(call?.result).toContain("notes.md");
    expect(call?.endedAt.getTime()).toBeGreaterThanOrEqual(call?.startedAt.getTime() ?? Number.NaN);
    expect(offeredTools(world.calls()[0])).toEqual(expect.arrayContaining(["Read", "Bash", "Edit", "Write"]));
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("reports a write claude refuses as a failed tool call and a log", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false, hasTools: true },
          writeFile: { path: ".claude/settings.json", content: "{}" },
        },
        { match: { afterToolResult: true }, reply: "could not write" },
      ],
    });
    const logs: string[] = [];
    const observer = { ...recordingObserver(), onLog: (message: string) => logs.push(message) };
    const toolCalls = observer.toolCalls;
    const result = await claudeCodeRuntime.send(world.request({ prompt: "TURN-1 configure" }), observer);
    expect(result.ok, result.error).toBe(true);
    expect(existsSync(path.join(world.work, ".claude/settings.json"))).toBe(false);
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]?.ok).toBe(false);
    expect(logs.some((message) => message.startsWith("claude denied Write"))).toBe(true);
  }, 120_000);

  it("reports this send's usage and cost, not the session's running totals", async () => {
    world = await createClaudeWorld({
      steps: [
        { match: { text: "TURN-1" }, usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: 40 } },
        { match: { text: "TURN-2" }, usage: { input: 200, output: 10, cacheRead: 60, cacheWrite: 5 } },
      ],
    });
    const firstObserver = recordingObserver();
    const first = await claudeCodeRuntime.send(world.request({ prompt: "TURN-1 count" }), firstObserver);
    const secondObserver = recordingObserver();
    const second = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-2 count", resume: true, nativeSessionId: first.nativeSessionId }),
      secondObserver,
    );
    expect(first.ok && second.ok, `${first.error} ${second.error}`).toBe(true);
    expect(first.usage).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 30,
      cacheWriteTokens: 40,
    });
    expect(second.usage).toMatchObject({
      inputTokens: 200,
      outputTokens: 10,
      cacheReadTokens: 60,
      cacheWriteTokens: 5,
    });
    expect(first.contextTokens).toBe(170);
    expect(second.contextTokens).toBe(265);
    expect(first.usage.costUsd).toBeGreaterThan(0);
    expect(second.usage.costUsd).toBeGreaterThan(0);
    expect(firstObserver.usages).toEqual([first.usage]);
    expect(secondObserver.usages).toEqual([second.usage]);
    // claude's own total on the second result line covers both sends: ours add up to it.
    const lines = readFileSync(world.request().rawOutputPath, "utf8").trim().split("\n");
    const results = lines.map((line) => JSON.parse(line)).filter((line) => line.type === "result");
    expect(results).toHaveLength(2);
    expect(first.usage.costUsd + second.usage.costUsd).toBeCloseTo(results[1].total_cost_usd, 9);
    expect(results[1].total_cost_usd).toBeGreaterThan(second.usage.costUsd);
  }, 120_000);

  it("offers no tools for tools: [] and maps thinking levels to the request", async () => {
    world = await createClaudeWorld();
    const none = await claudeCodeRuntime.send(
      world.request({ tools: [], thinking: "off", model: "claude-sonnet-4-6" }),
      recordingObserver(),
    );
    expect(none.ok, none.error).toBe(true);
    const thinking = await claudeCodeRuntime.send(
      world.request({
        sessionId: "sssf-a1b2c3d4-agent-0002",
        tools: ["read", "find", "ls"],
        thinking: "medium",
        model: "claude-opus-4-5",
      }),
      recordingObserver(),
    );
    expect(thinking.ok, thinking.error).toBe(true);
    const [bare, thoughtful] = world.calls();
    expect(offeredTools(bare)).toEqual([]);
    expect(anthropicBody(bare).thinking?.type).toBe("disabled");
    expect(anthropicBody(bare).output_config?.effort).toBe("low");
    expect(
      offeredTools(thoughtful)
        .filter((name) => name !== "DeferredToolPlaceholder")
        .sort(),
    ).toEqual(["Glob", "Read"]);
    expect(anthropicBody(thoughtful).thinking).toMatchObject({ type: "enabled", budget_tokens: 10_000 });
    expect(anthropicBody(thoughtful).output_config?.effort).toBe("medium");
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("passes a 1 MB prompt on stdin", async () => {
    world = await createClaudeWorld({ steps: [{ match: { text: "END-OF-BIG" }, reply: "read it all" }] });
    const prompt = `TURN-1 ${"x".repeat(1024 * 1024)} END-OF-BIG`;
    const commands: string[][] = [];
    const observer = { onProcessStart: (started: { command: string[] }) => commands.push(started.command) };
    const result = await claudeCodeRuntime.send(world.request({ prompt, tools: [] }), observer);
    expect(result.ok, result.error).toBe(true);
    expect(result.text).toBe("read it all");
    expect(userTexts(world.calls()[0]).at(-1)).toContain(prompt);
    expect(commands).toHaveLength(1);
    expect(commands[0]?.[0]).toBe(claudeBinary);
    expect(commands[0]?.join(" ").length).toBeLessThan(2000);
  }, 120_000);
});
