import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { piRuntime } from "../../src/runtimes/pi/index.js";
import { piSessionFile } from "../../src/runtimes/pi/session.js";
import type { Usage } from "../../src/runtimes/runtime.js";
import type { FakeScript } from "../../src/testing/index.js";
import { processGroupAlive } from "../../src/util/process-group.js";
import { recordingObserver } from "./cli-harness.js";
import { chatMessages, createPiWorld, FAKE_PRICES, messageText, type PiWorld, piBinary } from "./pi-world.js";

let world: PiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

async function open(script?: FakeScript): Promise<PiWorld> {
  world = await createPiWorld(script);
  return world;
}

const markers = (text: string): string[] => (JSON.parse(text) as { markers: string[] }).markers;

/** The usage pi reports for scripted counts: cost from the per-million prices in models.json. */
function priced(counts: { input: number; output: number; cacheRead?: number; cacheWrite?: number }): Usage {
  const cacheRead = counts.cacheRead ?? 0;
  const cacheWrite = counts.cacheWrite ?? 0;
  const costUsd =
    (counts.input * FAKE_PRICES.input +
      counts.output * FAKE_PRICES.output +
      cacheRead * FAKE_PRICES.cacheRead +
      cacheWrite * FAKE_PRICES.cacheWrite) /
    1_000_000;
  return {
    inputTokens: counts.input,
    outputTokens: counts.output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    costUsd,
  };
}

function expectUsage(actual: Usage, expected: Usage): void {
  const { costUsd, ...tokens } = actual;
  const { costUsd: expectedCost, ...expectedTokens } = expected;
  expect(tokens).toEqual(expectedTokens);
  expect(costUsd).toBeCloseTo(expectedCost, 12);
}

describe("pi runtime against the fake model", () => {
  it("continues its named session: the second send carries the first turn", async () => {
    const w = await open();
    // Repo context files pi would otherwise add to the system prompt.
    writeFileSync(path.join(w.work, "AGENTS.md"), "AGENTS-LEAK\n");
    mkdirSync(path.join(w.work, ".pi"));
    writeFileSync(path.join(w.work, ".pi/APPEND_SYSTEM.md"), "APPEND-LEAK\n");
    const first = await piRuntime.send(w.request({ prompt: "TURN-1 hello" }), recordingObserver());
    expect(first).toMatchObject({ ok: true, exitCode: 0 });
    expect(markers(first.text)).toEqual(["TURN-1"]);
    const file = piSessionFile(w.request().sessionDir, w.request().sessionId);
    expect(existsSync(file)).toBe(true);

    const logs: string[] = [];
    const second = await piRuntime.send(
      w.request({ prompt: "TURN-2 go on", resume: true, nativeSessionId: first.nativeSessionId }),
      { ...recordingObserver(), onLog: (message) => logs.push(message) },
    );
    expect(logs).toEqual([]); // nothing to repair in the session file
    expect(second.ok).toBe(true);
    expect(markers(second.text)).toEqual(["TURN-1", "TURN-2"]);
    expect(second.nativeSessionId).toBe(first.nativeSessionId);

    const chats = w.chats();
    expect(chats).toHaveLength(2);
    const history = chatMessages(chats[1]).map((message) => `${message.role}:${messageText(message)}`);
    expect(history.filter((line) => line.startsWith("user:"))).toEqual([
      "user:TURN-1 hello",
      "user:TURN-2 go on",
    ]);
    // The system prompt is not stored in pi's session: it is sent again, from its file, on each call.
    // pi adds only the date and its working directory.
    for (const chat of chats) {
      const system = chatMessages(chat)[0];
      expect(system?.role).toBe("system");
      expect(messageText(system)).toMatch(
        /^You are a test agent\. Reply with JSON\.\nCurrent date: \d{4}-\d\d-\d\d\nCurrent working directory: \/\S+$/,
      );
    }
    expect(w.server.egress()).toEqual([]);
  }, 120_000);

  it("reports one tool call for a scripted write that really writes the file", async () => {
    const w = await open({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          writeFile: { path: "notes.md", content: "hello notes\n" },
        },
        { match: { afterToolResult: true }, reply: '{"status":"success"}' },
      ],
    });
    const observer = recordingObserver();
    const result = await piRuntime.send(w.request({ prompt: "TURN-1 write the notes" }), observer);
    expect(result).toMatchObject({ ok: true, text: '{"status":"success"}' });
    expect(readFileSync(path.join(w.work, "notes.md"), "utf8")).toBe("hello notes\n");
    expect(observer.toolCalls).toHaveLength(1);
    const call = observer.toolCalls[0];
    expect(call).toMatchObject({ tool: "write", name: "write: notes.md", ok: true });
    expect(call?.args).toEqual({ path: "notes.md", content: "hello notes\n" });
    expect(call?.result).toContain("Successfully wrote");
    expect(call!.endedAt.getTime()).toBeGreaterThanOrEqual(call!.startedAt.getTime());
  }, 120_000);

  it("reports this send's usage and cost, which add up across the session's sends", async () => {
    const u1 = { input: 1000, output: 200, cacheRead: 300 };
    const u2 = { input: 1500, output: 50, cacheRead: 1200 };
    const u3 = { input: 700, output: 70, cacheRead: 2000 };
    const w = await open({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          writeFile: { path: "a.txt", content: "a" },
          usage: u1,
        },
        { match: { text: "TURN-1", afterToolResult: true }, reply: "written", usage: u2 },
        { match: { text: "TURN-2" }, reply: "second", usage: u3 },
      ],
    });
    const observer = recordingObserver();
    const first = await piRuntime.send(w.request({ prompt: "TURN-1 write" }), observer);
    const second = await piRuntime.send(w.request({ prompt: "TURN-2 again", resume: true }), observer);
    expect([first.ok, second.ok]).toEqual([true, true]);

    expectUsage(first.usage, sum(priced(u1), priced(u2)));
    expectUsage(second.usage, priced(u3));
    expectUsage(sum(first.usage, second.usage), sum(sum(priced(u1), priced(u2)), priced(u3)));
    expect(first.usage.costUsd).toBeGreaterThan(0);
    // One onUsage per model reply; context = the last reply's prompt plus its output.
    expect(observer.usages).toHaveLength(3);
    expect(first.contextTokens).toBe(u2.input + u2.output + u2.cacheRead);
    expect(second.contextTokens).toBe(u3.input + u3.output + u3.cacheRead);
  }, 120_000);

  it("fails a send whose model call errors although pi exits 0", async () => {
    const w = await open({
      steps: [{ match: { text: "TURN-1" }, error: { status: 400, message: "bad thing TEST" } }],
    });
    const result = await piRuntime.send(w.request({ prompt: "TURN-1 boom" }), recordingObserver());
    expect(result).toMatchObject({ ok: false, errorKind: "agent_error", exitCode: 0 });
    expect(result.error).toContain("400 bad thing TEST");
  }, 120_000);

  it("kills a hung model call on the idle timeout and leaves no process behind", async () => {
    const w = await open({ steps: [{ match: { text: "TURN-1" }, hang: true }] });
    const observer = recordingObserver();
    const result = await piRuntime.send(
      w.request({ prompt: "TURN-1 wait", timeouts: { idleMs: 15_000, wallMs: 100_000 } }),
      observer,
    );
    expect(result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
    // pi got as far as the model call, which never answered.
    expect(w.chats().map((chat) => chat.status)).toEqual([null]);
    const pid = observer.pids[0]!;
    expect(processGroupAlive(pid)).toBe(false);
  }, 120_000);
});

function sum(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

describe("pi runtime requests", () => {
  it("offers no tools for tools: [], refuses unknown tools and models without spawning, and makes no egress", async () => {
    const w = await open();
    const bare = await piRuntime.send(w.request({ tools: [], prompt: "TURN-1 plain" }), recordingObserver());
    expect(bare.ok).toBe(true);
    const body = w.chats()[0]?.body as Record<string, unknown>;
    expect(body).not.toHaveProperty("tools");

    const observer = recordingObserver();
    const badTool = await piRuntime.send(w.request({ tools: ["read", "Write"] }), observer);
    expect(badTool).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(badTool.error).toContain(
      'pi has no tool "Write"; the tools are read, bash, edit, write, grep, find, ls',
    );

    const badModel = await piRuntime.send(w.request({ model: "fake/fake-modle" }), observer);
    expect(badModel).toMatchObject({ ok: false, errorKind: "model_unknown" });
    expect(badModel.error).toContain('pi has no model "fake/fake-modle"');
    expect(badModel.error).toContain(path.join(w.agentDir, "models.json"));
    expect(badModel.error).toContain("models.generated.js");
    const noPi = await piRuntime.send(w.request({ command: [path.join(w.root, "no-pi")] }), observer);
    expect(noPi).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(noPi.error).toContain("no-pi not found");
    expect(observer.pids).toEqual([]);
    expect(w.chats()).toHaveLength(1);
    expect(w.server.egress()).toEqual([]);
  }, 120_000);

  it("passes the thinking level as pi's reasoning effort", async () => {
    const w = await open();
    const result = await piRuntime.send(
      w.request({ model: "fake/fake-reasoner", thinking: "high", tools: [] }),
      recordingObserver(),
    );
    expect(result.ok).toBe(true);
    expect(w.chats()[0]?.body).toMatchObject({ model: "fake-reasoner", reasoning_effort: "high" });
  }, 120_000);

  it("sends a 1 MB prompt and a 1 MB system prompt through stdin and a file, not argv", async () => {
    const w = await open({ steps: [{ match: { text: "BIG-PROMPT" }, reply: "got it" }] });
    const prompt = `BIG-PROMPT ${"p".repeat(1024 * 1024)}`;
    const systemPrompt = `BIG-SYSTEM ${"s".repeat(1024 * 1024)}`;
    let argv: string[] = [];
    const observer = {
      ...recordingObserver(),
      onProcessStart: (started: { command: string[] }) => {
        argv = started.command;
      },
    };
    const result = await piRuntime.send(w.request({ prompt, systemPrompt, tools: [] }), observer);
    expect(result).toMatchObject({ ok: true, text: "got it" });
    const messages = chatMessages(w.chats()[0]);
    expect(messageText(messages[0]).startsWith(systemPrompt)).toBe(true);
    expect(messageText(messages[1])).toBe(prompt);
    expect(argv.join(" ").length).toBeLessThan(4096);
  }, 120_000);

  it("keeps raw_output.jsonl linear in the reply: streamed deltas are cut to the delta", async () => {
    const reply = "word ".repeat(8000);
    const w = await open({ steps: [{ match: { text: "TURN-1" }, reply }] });
    const request = w.request({ prompt: "TURN-1 long answer", tools: [] });
    const result = await piRuntime.send(request, recordingObserver());
    expect(result).toMatchObject({ ok: true, text: reply });
    const raw = readFileSync(request.rawOutputPath, "utf8");
    const events = raw
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text) as { type: string });
    const updates = events.filter((event) => event.type === "message_update");
    expect(updates.length).toBeGreaterThan(100);
    expect(updates.every((event) => !("message" in event))).toBe(true);
    expect(updates[1]).toMatchObject({ assistantMessageEvent: { type: "text_delta" } });
    // Unfiltered, pi prints ~640 bytes of stdout per byte of a reply this long.
    expect(raw.length).toBeLessThan(reply.length * 12);
  }, 120_000);

  it("continues the session in the run's cwd, not the cwd pi recorded", async () => {
    const w = await open({
      steps: [
        {
          match: { text: "TURN-2", afterToolResult: false },
          writeFile: { path: "moved.txt", content: "here\n" },
        },
        { match: { afterToolResult: true }, reply: "ok" },
      ],
    });
    const first = await piRuntime.send(w.request({ prompt: "TURN-1 start" }), recordingObserver());
    expect(first.ok).toBe(true);
    const elsewhere = path.join(w.root, "moved-work");
    mkdirSync(elsewhere);
    const observer = { ...recordingObserver(), logs: [] as string[] };
    const second = await piRuntime.send(w.request({ prompt: "TURN-2 write", resume: true, cwd: elsewhere }), {
      ...observer,
      onLog: (message: string) => observer.logs.push(message),
    });
    expect(second.ok).toBe(true);
    expect(readFileSync(path.join(elsewhere, "moved.txt"), "utf8")).toBe("here\n");
    expect(existsSync(path.join(w.work, "moved.txt"))).toBe(false);
    expect(observer.logs.join("\n")).toContain(`continuing it in ${elsewhere}`);
  }, 120_000);

  it("never resumes a damaged session file and never continues one sssf calls new", async () => {
    const w = await open();
    const request = w.request();
    const file = piSessionFile(request.sessionDir, request.sessionId);
    mkdirSync(request.sessionDir, { recursive: true });
    writeFileSync(file, "not a session\n");
    const damaged = await piRuntime.send({ ...request, resume: true }, recordingObserver());
    expect(damaged).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(damaged.error).toContain("has no valid session header");
    expect(readFileSync(file, "utf8")).toBe("not a session\n");

    writeFileSync(file, `${JSON.stringify({ type: "session", version: 3, id: "old", cwd: w.work })}\n`);
    const fresh = await piRuntime.send({ ...request, prompt: "TURN-7 new" }, recordingObserver());
    expect(fresh.ok).toBe(true);
    expect(fresh.nativeSessionId).not.toBe("old");
    const asides = readdirSync(request.sessionDir).filter((name) => name.includes(".replaced-"));
    expect(asides).toHaveLength(1);
  }, 120_000);

  it("doctor finds the binary, its version, the model and its key", async () => {
    const w = await open();
    const checks = await piRuntime.doctor!({
      agent: "agent",
      model: "fake/fake-model",
      command: [piBinary],
      env: w.env,
      cwd: w.work,
    });
    expect(checks.every((check) => check.ok)).toBe(true);
    expect(checks.map((check) => check.item)).toEqual(["binary", "version", "model", "models.json apiKey"]);
    expect(checks[1]?.detail).toBe("0.73.1");
    const unknown = await piRuntime.doctor!({
      agent: "agent",
      model: "nope/nothing",
      command: [piBinary],
      env: w.env,
      cwd: w.work,
    });
    expect(unknown.find((check) => check.item === "model")).toMatchObject({ ok: false });
  }, 120_000);
});
