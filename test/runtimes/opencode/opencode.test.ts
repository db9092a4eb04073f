import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { opencodeRuntime } from "../../../src/runtimes/opencode/index.js";
import { OPENCODE_SESSIONS_FILE } from "../../../src/runtimes/opencode/session.js";
import { recordingObserver } from "../cli-harness.js";
import { CONTRACT_FILE, describeRuntimeContract, HANDOFF_FILE } from "../runtime-contract.js";
import {
  chatMessages,
  createOpencodeWorld,
  FAKE_PRICES,
  messageText,
  type OpencodeWorld,
  offeredTools,
  opencodeBinary,
  opencodeWire,
} from "./opencode-world.js";

let world: OpencodeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const SYSTEM = "You are a test agent. Reply with JSON. {env:HOME} stays literal.";
const cost = (input: number, output: number, cacheRead: number) =>
  (input * FAKE_PRICES.input + output * FAKE_PRICES.output + cacheRead * FAKE_PRICES.cache_read) / 1e6;

describeRuntimeContract({
  id: "opencode",
  runtime: opencodeRuntime,
  open: createOpencodeWorld,
  wire: opencodeWire,
  session: {
    first: { systemPrompt: SYSTEM },
    second: { systemPrompt: SYSTEM },
    expect(w, first) {
      expect(first.result.exitCode).toBe(0);
      expect(first.result.nativeSessionId).toMatch(/^ses_/);
      const chats = w.chats();
      const history = chatMessages(chats[1]).map((message) => `${message.role}:${messageText(message)}`);
      expect(history[0]).toMatch(
        /^system:You are a test agent\. Reply with JSON\. \{env:HOME\} stays literal\./,
      );
      expect(history.slice(1)).toEqual([
        "user:TURN-1 hello",
        `assistant:${first.result.text}`,
        "user:TURN-2 go on",
      ]);
      expect(messageText(chatMessages(chats[0])[0])).toContain("{env:HOME} stays literal");
      const recorded = JSON.parse(
        readFileSync(path.join(first.request.sessionDir, OPENCODE_SESSIONS_FILE), "utf8"),
      );
      expect(recorded).toEqual({ [first.request.sessionId]: first.result.nativeSessionId });
    },
  },
  toolCall: {
    tools: ["write"],
    expect(w, { observer }) {
      expect(observer.toolCalls[0]?.args).toMatchObject({
        filePath: CONTRACT_FILE.path,
        content: CONTRACT_FILE.content,
      });
      // opencode checks write and edit against one permission, so allowing write offers both.
      expect(offeredTools(w.chats()[0])).toEqual(["edit", "write"]);
    },
  },
  handoffWrite: {
    expect(_w, { observer }, layout) {
      expect(observer.toolCalls[0]?.args).toMatchObject({
        filePath: path.join(layout.contextHandoff, HANDOFF_FILE.path),
        content: HANDOFF_FILE.content,
      });
    },
  },
  // opencode asks external_directory for a path outside its project (the worktree), which sssf's
  // agent denies everywhere but under the handoff folder.
  outsideWrite: {
    expect(_w, { observer }) {
      expect(observer.toolCalls[0]?.result).toContain('"permission":"external_directory"');
    },
  },
  // opencode prices each send from the per-million prices in opencode.json; its context is the
  // last prompt plus the output.
  usage: {
    cost: (counts) => cost(counts.input ?? 0, counts.output ?? 0, counts.cacheRead ?? 0),
    contextTokens: (counts) => (counts.input ?? 0) + (counts.output ?? 0) + (counts.cacheRead ?? 0),
  },
  // opencode needs tens of seconds of CPU for a megabyte before it prints anything.
  bigPrompt: {
    timeouts: { idleMs: 200_000, wallMs: 260_000 },
    expect(w, { request }) {
      const user = chatMessages(w.chats()[0]).find((message) => message.role === "user");
      expect(messageText(user)).toBe(request.prompt);
    },
  },
  toolsNone: {
    request: { model: "fake/fake-reasoner", thinking: "high" },
    expect(w) {
      const body = (w.chats()[0]?.body ?? {}) as Record<string, unknown>;
      expect(body.tools).toBeUndefined();
      expect(body.reasoning_effort).toBe("high");
    },
  },
  // opencode prints nothing until a part completes, so the idle limit must outlast its start-up.
  hang: { timeouts: { idleMs: 25_000, wallMs: 150_000 } },
  unknownModel: {
    model: "fake/nope",
    expect(w, { result }) {
      expect(result.error).toContain("fake-model, fake-reasoner");
      expect(result.error).toContain(path.join(w.configDir, "opencode.json"));
    },
  },
});

describe("opencode runtime", () => {
  it("refuses an unknown provider or tool before starting opencode", async () => {
    world = await createOpencodeWorld();
    const observer = recordingObserver();
    const provider = await opencodeRuntime.send(world.request({ model: "nowhere/x" }), observer);
    expect(provider).toMatchObject({ ok: false, errorKind: "model_unknown" });
    expect(provider.error).toContain('no provider "nowhere"');
    const tool = await opencodeRuntime.send(world.request({ tools: ["read", "browse"] }), observer);
    expect(tool).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(tool.error).toContain('"browse"');
    expect(tool.error).toContain("read, bash, edit, write, grep, find, ls");
    expect(observer.pids).toEqual([]);
    expect(world.server.requests()).toEqual([]);
  });

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
  });
});
