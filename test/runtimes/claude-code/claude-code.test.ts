import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeCodeRuntime } from "../../../src/runtimes/claude-code/index.js";
import { claudeSocketPaths, claudeTmpDir } from "../../../src/runtimes/claude-code/scratch.js";
import { claudeSessionUuid, claudeTranscriptPath } from "../../../src/runtimes/claude-code/session.js";
import { recordingObserver } from "../cli-harness.js";
import { CONTRACT_FILE, describeRuntimeContract, HANDOFF_FILE, markersOf } from "../runtime-contract.js";
import {
  anthropicBody,
  type ClaudeWorld,
  claudeBinary,
  claudeWire,
  createClaudeWorld,
  offeredTools,
  systemText,
} from "./claude-code-world.js";

let world: ClaudeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describeRuntimeContract({
  id: "claude_code",
  runtime: claudeCodeRuntime,
  open: createClaudeWorld,
  wire: claudeWire,
  session: {
    first: { systemPrompt: "SYSTEM-ONE be brief" },
    second: { systemPrompt: "SYSTEM-TWO be brief" },
    before(w) {
      writeFileSync(path.join(w.work, "CLAUDE.md"), "CLAUDE-MD-MARKER: repo instructions sssf keeps out\n");
    },
    expect(w, first) {
      expect(first.result.nativeSessionId).toBe(claudeSessionUuid("sssf-a1b2c3d4-agent-0001"));
      const transcript = claudeTranscriptPath(
        path.join(w.home, ".claude"),
        w.work,
        first.result.nativeSessionId ?? "",
      );
      expect(existsSync(transcript)).toBe(true);
      const calls = w.calls();
      expect(systemText(calls[0])).toContain("SYSTEM-ONE");
      // claude records the first system prompt unless told not to; sssf sends the current one every time.
      expect(systemText(calls[1])).toContain("SYSTEM-TWO");
      expect(systemText(calls[1])).not.toContain("SYSTEM-ONE");
      expect(JSON.stringify(calls)).not.toContain("CLAUDE-MD-MARKER");
    },
  },
  toolCall: {
    expect(w, { observer }) {
      expect(observer.toolCalls[0]?.result).toContain(CONTRACT_FILE.path);
      expect(offeredTools(w.calls()[0])).toEqual(expect.arrayContaining(["Read", "Bash", "Edit", "Write"]));
    },
  },
  handoffWrite: {
    expect(_w, { observer }, layout) {
      expect(observer.commands[0]).toContain(`--add-dir=${layout.contextHandoff}`);
      expect(observer.toolCalls[0]?.result).toContain(path.join(layout.contextHandoff, HANDOFF_FILE.path));
    },
  },
  // The allow rule for Write has no path; permissions.blockWritesOutsideWorkingDirectories (sssf's
  // --settings) is what refuses it outside the cwd and the --add-dir folder.
  outsideWrite: {
    expect(_w, { observer }) {
      expect(observer.toolCalls[0]?.result).toContain("blockWritesOutsideWorkingDirectories");
      expect(observer.logs.some((message) => message.startsWith("claude denied Write"))).toBe(true);
    },
  },
  usage: {
    script: [
      { input: 100, output: 20, cacheRead: 30, cacheWrite: 40 },
      { input: 200, output: 10, cacheRead: 60, cacheWrite: 5 },
    ],
    // claude prices the send with its own table; its context is the last prompt (input and cache).
    cost: () => "positive",
    contextTokens: (counts) => (counts.input ?? 0) + (counts.cacheRead ?? 0) + (counts.cacheWrite ?? 0),
    expect(_w, first, second) {
      // claude's own total on the second result line covers both sends: ours add up to it.
      const lines = readFileSync(first.request.rawOutputPath, "utf8").trim().split("\n");
      const results = lines.map((line) => JSON.parse(line)).filter((line) => line.type === "result");
      expect(results).toHaveLength(2);
      expect(first.result.usage.costUsd + second.result.usage.costUsd).toBeCloseTo(
        results[1].total_cost_usd,
        9,
      );
      expect(results[1].total_cost_usd).toBeGreaterThan(second.result.usage.costUsd);
    },
  },
  bigPrompt: {
    expect(_w, { observer }) {
      expect(observer.commands[0]?.[0]).toBe(claudeBinary);
    },
  },
  toolsNone: {
    request: { thinking: "off", model: "claude-sonnet-4-6" },
    expect(w) {
      const bare = w.calls()[0];
      expect(anthropicBody(bare).thinking?.type).toBe("disabled");
      expect(anthropicBody(bare).output_config?.effort).toBe("low");
    },
  },
  hang: {
    timeouts: { idleMs: 20_000, wallMs: 120_000 },
    async expect(w, { result, observer }) {
      const pid = observer.pids[0] ?? 0;
      // claude's scratch dir is the agent's session folder, and the killed process's socket is gone.
      const tmp = claudeTmpDir(w.request().sessionDir);
      expect(existsSync(path.join(tmp, "cc-socks"))).toBe(true);
      const sockets = claudeSocketPaths(pid, { ...process.env, ...w.env, CLAUDE_CODE_TMPDIR: tmp });
      expect(sockets.filter((file) => existsSync(file))).toEqual([]);

      // The retry continues the conversation claude recorded before it hung.
      const next = await claudeCodeRuntime.send(
        w.request({ prompt: "TURN-2 answer now", resume: true, nativeSessionId: result.nativeSessionId }),
        recordingObserver(),
      );
      expect(next.ok, next.error).toBe(true);
      expect(markersOf(next.text)).toEqual(["TURN-1", "TURN-2"]);
    },
  },
  unknownModel: { model: "not a model" },
});

describe("claude_code runtime against the fake model", () => {
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

  it("maps a thinking level and a tool allowlist to the request", async () => {
    world = await createClaudeWorld();
    const thinking = await claudeCodeRuntime.send(
      world.request({ tools: ["read", "find", "ls"], thinking: "medium", model: "claude-opus-4-5" }),
      recordingObserver(),
    );
    expect(thinking.ok, thinking.error).toBe(true);
    const [thoughtful] = world.calls();
    expect(
      offeredTools(thoughtful)
        .filter((name) => name !== "DeferredToolPlaceholder")
        .sort(),
    ).toEqual(["Glob", "Read"]);
    expect(anthropicBody(thoughtful).thinking).toMatchObject({ type: "enabled", budget_tokens: 10_000 });
    expect(anthropicBody(thoughtful).output_config?.effort).toBe("medium");
    expect(world.server.egress()).toEqual([]);
  }, 120_000);
});
