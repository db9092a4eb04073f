import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { opencodeRuntime } from "../../src/runtimes/opencode/index.js";
import { OPENCODE_SESSIONS_FILE } from "../../src/runtimes/opencode/session.js";
import { processGroupAlive } from "../../src/util/process-group.js";
import { recordingObserver } from "./cli-harness.js";
import {
  chatMessages,
  createOpencodeWorld,
  FAKE_PRICES,
  messageText,
  type OpencodeWorld,
  offeredTools,
  opencodeBinary,
} from "./opencode-world.js";

let world: OpencodeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const SYSTEM = "You are a test agent. Reply with JSON. {env:HOME} stays literal.";
const cost = (input: number, output: number, cacheRead: number) =>
  (input * FAKE_PRICES.input + output * FAKE_PRICES.output + cacheRead * FAKE_PRICES.cache_read) / 1e6;
const markersOf = (text: string): string[] => (JSON.parse(text) as { markers: string[] }).markers;

describe("opencode runtime", () => {
  it("continues its own session and reports each send's usage and cost", async () => {
    world = await createOpencodeWorld({
      steps: [
        { match: { text: "TURN-1" }, usage: { input: 100, output: 20, cacheRead: 40 } },
        { match: { text: "TURN-2" }, usage: { input: 300, output: 50, cacheRead: 10 } },
      ],
    });
    const observer = recordingObserver();
    const first = await opencodeRuntime.send(
      world.request({ prompt: "TURN-1 hello", systemPrompt: SYSTEM }),
      observer,
    );
    expect(first).toMatchObject({ ok: true, exitCode: 0 });
    expect(first.nativeSessionId).toMatch(/^ses_/);
    expect(markersOf(first.text)).toEqual(["TURN-1"]);
    expect(first.usage).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
    });
    expect(first.usage.costUsd).toBeCloseTo(cost(100, 20, 40), 12);
    expect(first.contextTokens).toBe(160);

    const second = await opencodeRuntime.send(
      world.request({
        prompt: "TURN-2 go on",
        systemPrompt: SYSTEM,
        resume: true,
        nativeSessionId: first.nativeSessionId,
      }),
      observer,
    );
    expect(second).toMatchObject({ ok: true, nativeSessionId: first.nativeSessionId });
    expect(markersOf(second.text)).toEqual(["TURN-1", "TURN-2"]);
    expect(second.usage).toMatchObject({ inputTokens: 300, outputTokens: 50, cacheReadTokens: 10 });
    expect(second.usage.costUsd).toBeCloseTo(cost(300, 50, 10), 12);
    expect(observer.usages.map((usage) => usage.inputTokens)).toEqual([100, 300]);
    const total = observer.usages.reduce((sum, usage) => sum + usage.costUsd, 0);
    expect(total).toBeCloseTo(cost(400, 70, 50), 12);
    expect(first.usage.outputTokens + second.usage.outputTokens).toBe(70);

    const chats = world.chats();
    expect(chats).toHaveLength(2);
    const history = chatMessages(chats[1]).map((message) => `${message.role}:${messageText(message)}`);
    expect(history[0]).toMatch(
      /^system:You are a test agent\. Reply with JSON\. \{env:HOME\} stays literal\./,
    );
    expect(history.slice(1)).toEqual(["user:TURN-1 hello", `assistant:${first.text}`, "user:TURN-2 go on"]);
    expect(messageText(chatMessages(chats[0])[0])).toContain("{env:HOME} stays literal");
    const recorded = JSON.parse(
      readFileSync(path.join(world.request().sessionDir, OPENCODE_SESSIONS_FILE), "utf8"),
    );
    expect(recorded).toEqual({ [world.request().sessionId]: first.nativeSessionId });
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  it("reports one tool call for a file the model writes", async () => {
    world = await createOpencodeWorld({
      steps: [
        {
          match: { text: "WRITE_IT", afterToolResult: false, hasTools: true },
          writeFile: { path: "notes/hello.txt", content: "hi from opencode\n" },
        },
        { match: { afterToolResult: true }, reply: '{"status":"success"}' },
      ],
    });
    const observer = recordingObserver();
    const before = Date.now();
    const result = await opencodeRuntime.send(
      world.request({ prompt: "TURN-1 WRITE_IT now", tools: ["write"] }),
      observer,
    );
    expect(result).toMatchObject({ ok: true, text: '{"status":"success"}' });
    expect(readFileSync(path.join(world.work, "notes/hello.txt"), "utf8")).toBe("hi from opencode\n");
    expect(observer.toolCalls).toHaveLength(1);
    const call = observer.toolCalls[0]!;
    expect(call).toMatchObject({ tool: "write", name: "write: notes/hello.txt", ok: true });
    expect(call.args).toMatchObject({ filePath: "notes/hello.txt", content: "hi from opencode\n" });
    expect(call.startedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(call.endedAt.getTime()).toBeGreaterThanOrEqual(call.startedAt.getTime());
    // opencode checks write and edit against one permission, so allowing write offers both.
    expect(offeredTools(world.chats()[0])).toEqual(["edit", "write"]);
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  it("offers no tools for tools: [] and maps thinking to the model's variant", async () => {
    world = await createOpencodeWorld();
    const result = await opencodeRuntime.send(
      world.request({ model: "fake/fake-reasoner", tools: [], thinking: "high" }),
      recordingObserver(),
    );
    expect(result.ok).toBe(true);
    const body = (world.chats()[0]?.body ?? {}) as Record<string, unknown>;
    expect(body.tools).toBeUndefined();
    expect(body.reasoning_effort).toBe("high");
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  it("sends a 1 MB prompt through stdin", async () => {
    // A short scripted reply and usage: the echo reply would stream the megabyte back, and its token
    // estimate would overflow the model's context and start opencode's compaction.
    world = await createOpencodeWorld({
      steps: [{ match: { text: "TURN-1" }, reply: "big prompt received", usage: { input: 1000, output: 5 } }],
    });
    const prompt = `TURN-1 ${"x".repeat(1024 * 1024)}`;
    // opencode needs tens of seconds of CPU for a megabyte before it prints anything.
    const timeouts = { idleMs: 200_000, wallMs: 260_000 };
    const result = await opencodeRuntime.send(
      world.request({ prompt, tools: [], timeouts }),
      recordingObserver(),
    );
    expect(result).toMatchObject({ ok: true, text: "big prompt received" });
    const user = chatMessages(world.chats()[0]).find((message) => message.role === "user");
    expect(messageText(user)).toBe(prompt);
  }, 300_000);

  it("kills the whole process group when the model hangs", async () => {
    world = await createOpencodeWorld({ steps: [{ match: { text: "HANG" }, hang: true }] });
    const observer = recordingObserver();
    // opencode prints nothing until a part completes, so the idle limit must outlast its start-up.
    const timeouts = { idleMs: 25_000, wallMs: 150_000 };
    const result = await opencodeRuntime.send(world.request({ prompt: "TURN-1 HANG", timeouts }), observer);
    expect(result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
    expect(world.chats().some((chat) => chat.status === null)).toBe(true);
    expect(observer.pids).toHaveLength(1);
    expect(processGroupAlive(observer.pids[0]!)).toBe(false);
  }, 180_000);

  it("refuses an unknown model or tool before starting opencode", async () => {
    world = await createOpencodeWorld();
    const observer = recordingObserver();
    const model = await opencodeRuntime.send(world.request({ model: "fake/nope" }), observer);
    expect(model).toMatchObject({ ok: false, errorKind: "model_unknown" });
    expect(model.error).toContain('"fake/nope"');
    expect(model.error).toContain("fake-model, fake-reasoner");
    expect(model.error).toContain(path.join(world.configDir, "opencode.json"));
    const provider = await opencodeRuntime.send(world.request({ model: "nowhere/x" }), observer);
    expect(provider).toMatchObject({ ok: false, errorKind: "model_unknown" });
    expect(provider.error).toContain('no provider "nowhere"');
    const tool = await opencodeRuntime.send(world.request({ tools: ["read", "browse"] }), observer);
    expect(tool).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(tool.error).toContain('"browse"');
    expect(tool.error).toContain("read, bash, edit, write, grep, find, ls");
    expect(observer.pids).toEqual([]);
    expect(world.server.requests()).toEqual([]);
  }, 60_000);

  it("doctor finds the binary, its version, the model and its credentials", async () => {
    world = await createOpencodeWorld();
    const request = { agent: "agent", model: "fake/fake-model", env: world.env, cwd: world.work };
    const checks = await opencodeRuntime.doctor!({ ...request, command: [opencodeBinary] });
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    expect(checks.map((check) => check.item)).toEqual(["binary", "version", "model", "credentials"]);
    expect(checks[1]?.detail).toBe("1.18.33");
    const missing = await opencodeRuntime.doctor!({
      ...request,
      command: [path.join(world.root, "no-opencode")],
    });
    expect(missing).toMatchObject([{ ok: false, item: "binary" }]);
    expect(existsSync(path.join(world.configDir, "node_modules"))).toBe(true);
    expect(world.server.requests()).toEqual([]);
    expect(world.server.egress()).toEqual([]);
  }, 60_000);
});
