import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { piRuntime } from "../../../src/runtimes/pi/index.js";
import { piSessionFile } from "../../../src/runtimes/pi/session.js";
import type { Usage } from "../../../src/runtimes/runtime.js";
import type { FakeScript, FakeUsage } from "../../../src/testing/index.js";
import { recordingObserver } from "../cli-harness.js";
import { CONTRACT_FILE, describeRuntimeContract, HANDOFF_FILE } from "../runtime-contract.js";
import {
  chatMessages,
  createPiWorld,
  FAKE_PRICES,
  messageText,
  type PiWorld,
  piBinary,
  piWire,
} from "./pi-world.js";

let world: PiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

async function open(script?: FakeScript): Promise<PiWorld> {
  world = await createPiWorld(script);
  return world;
}

/** The usage pi reports for scripted counts: cost from the per-million prices in models.json. */
function priced(counts: FakeUsage): Usage {
  const input = counts.input ?? 0;
  const output = counts.output ?? 0;
  const cacheRead = counts.cacheRead ?? 0;
  const cacheWrite = counts.cacheWrite ?? 0;
  const costUsd =
    (input * FAKE_PRICES.input +
      output * FAKE_PRICES.output +
      cacheRead * FAKE_PRICES.cacheRead +
      cacheWrite * FAKE_PRICES.cacheWrite) /
    1_000_000;
  return {
    inputTokens: input,
    outputTokens: output,
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

describeRuntimeContract({
  id: "pi",
  runtime: piRuntime,
  open: createPiWorld,
  wire: piWire,
  session: {
    before(w) {
      // Repo context files pi would otherwise add to the system prompt.
      writeFileSync(path.join(w.work, "AGENTS.md"), "AGENTS-LEAK\n");
      mkdirSync(path.join(w.work, ".pi"));
      writeFileSync(path.join(w.work, ".pi/APPEND_SYSTEM.md"), "APPEND-LEAK\n");
    },
    expect(w, first, second) {
      expect(first.result.exitCode).toBe(0);
      expect(existsSync(piSessionFile(first.request.sessionDir, first.request.sessionId))).toBe(true);
      expect(second.observer.logs).toEqual([]); // nothing to repair in the session file
      const chats = w.chats();
      expect(piWire.userTexts(chats[1])).toEqual(["TURN-1 hello", "TURN-2 go on"]);
      // The system prompt is not stored in pi's session: it is sent again, from its file, on each call.
      // pi adds only the date and its working directory.
      for (const chat of chats) {
        const system = chatMessages(chat)[0];
        expect(system?.role).toBe("system");
        expect(messageText(system)).toMatch(
          /^You are a test agent\. Reply with JSON\.\nCurrent date: \d{4}-\d\d-\d\d\nCurrent working directory: \/\S+$/,
        );
      }
    },
  },
  toolCall: {
    expect(_w, { observer }) {
      const call = observer.toolCalls[0];
      expect(call?.args).toEqual({ path: CONTRACT_FILE.path, content: CONTRACT_FILE.content });
      expect(call?.result).toContain("Successfully wrote");
    },
  },
  handoffWrite: {
    expect(_w, { observer }, layout) {
      expect(observer.toolCalls[0]?.args).toEqual({
        path: path.join(layout.contextHandoff, HANDOFF_FILE.path),
        content: HANDOFF_FILE.content,
      });
    },
  },
  // pi prices each reply from the per-million prices in models.json; its context is the last
  // reply's prompt plus its output.
  usage: {
    cost: (counts) => priced(counts).costUsd,
    contextTokens: (counts) => (counts.input ?? 0) + (counts.output ?? 0) + (counts.cacheRead ?? 0),
  },
  bigPrompt: {
    expect(w, { request }) {
      const messages = chatMessages(w.chats()[0]);
      expect(messageText(messages[0]).startsWith(request.systemPrompt)).toBe(true);
      expect(messageText(messages[1])).toBe(request.prompt);
    },
  },
  toolsNone: {
    expect(w) {
      expect(w.chats()[0]?.body).not.toHaveProperty("tools");
    },
  },
  hang: {
    timeouts: { idleMs: 15_000, wallMs: 100_000 },
    expect(w) {
      expect(w.chats().map((chat) => chat.status)).toEqual([null]);
    },
  },
  unknownModel: {
    model: "fake/fake-modle",
    expect(w, { result }) {
      expect(result.error).toContain('pi has no model "fake/fake-modle"');
      expect(result.error).toContain(path.join(w.agentDir, "models.json"));
      expect(result.error).toContain("models.generated.js");
    },
  },
  skip: {
    outsideWrite:
      "pi limits no paths: its file tools write wherever the model says (pi has no permission system; path rules would be an extension, and sssf runs pi with --no-extensions), so the handoff folder needs no opening and nothing outside the cwd is refused",
  },
});

describe("pi runtime against the fake model", () => {
  it("sums the usage and cost of every model reply in a send", async () => {
    const u1 = { input: 1000, output: 200, cacheRead: 300 };
    const u2 = { input: 1500, output: 50, cacheRead: 1200 };
    const w = await open({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          writeFile: { path: "a.txt", content: "a" },
          usage: u1,
        },
        { match: { text: "TURN-1", afterToolResult: true }, reply: "written", usage: u2 },
      ],
    });
    const observer = recordingObserver();
    const first = await piRuntime.send(w.request({ prompt: "TURN-1 write" }), observer);
    expect(first.ok).toBe(true);
    expectUsage(first.usage, sum(priced(u1), priced(u2)));
    expect(first.usage.costUsd).toBeGreaterThan(0);
    // One onUsage per model reply; context = the last reply's prompt plus its output.
    expect(observer.usages).toHaveLength(2);
    expect(first.contextTokens).toBe(u2.input + u2.output + u2.cacheRead);
  }, 120_000);

  it("streams the reply's text and announces each tool call before it ends (live progress)", async () => {
    const w = await open({
      steps: [
        { match: { text: "TURN-1", afterToolResult: false }, writeFile: { path: "b.txt", content: "b" } },
        { match: { text: "TURN-1", afterToolResult: true }, reply: "first line\nwritten it all" },
      ],
    });
    let text = "";
    const order: string[] = [];
    const observer = {
      ...recordingObserver(),
      onText: (piece: string) => {
        text += piece;
      },
      onToolStart: (call: { name: string }) => order.push(`start ${call.name}`),
      onToolCall: (call: { name: string }) => order.push(`end ${call.name}`),
    };
    const result = await piRuntime.send(w.request({ prompt: "TURN-1 write" }), observer);
    expect(result.ok).toBe(true);
    expect(text).toContain("first line\nwritten it all");
    expect(order).toHaveLength(2);
    expect(order[0]).toMatch(/^start write/);
    expect(order[1]).toMatch(/^end write/);
  }, 120_000);

  it("fails a send whose model call errors although pi exits 0", async () => {
    const w = await open({
      steps: [{ match: { text: "TURN-1" }, error: { status: 400, message: "bad thing TEST" } }],
    });
    const result = await piRuntime.send(w.request({ prompt: "TURN-1 boom" }), recordingObserver());
    expect(result).toMatchObject({ ok: false, errorKind: "agent_error", exitCode: 0 });
    expect(result.error).toContain("400 bad thing TEST");
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
  it("refuses unknown tools and a missing pi without spawning, and makes no egress", async () => {
    const w = await open();
    const observer = recordingObserver();
    const badTool = await piRuntime.send(w.request({ tools: ["read", "Write"] }), observer);
    expect(badTool).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(badTool.error).toContain(
      'pi has no tool "Write"; the tools are read, bash, edit, write, grep, find, ls',
    );
    const noPi = await piRuntime.send(w.request({ command: [path.join(w.root, "no-pi")] }), observer);
    expect(noPi).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(noPi.error).toContain("no-pi not found");
    expect(observer.pids).toEqual([]);
    expect(w.chats()).toEqual([]);
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
