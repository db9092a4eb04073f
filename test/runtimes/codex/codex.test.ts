import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../../src/library.js";
import { codexRuntime } from "../../../src/runtimes/codex/index.js";
import { processGroupAlive } from "../../../src/util/process-group.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { type CliWorld, engineRepo } from "../cli-harness.js";
import { describeRuntimeContract } from "../runtime-contract.js";
import {
  CODEX_TEST_MODEL,
  codexBin,
  codexObserver,
  codexRequest,
  codexWire,
  createCodexWorld,
  inputMessages,
  modelRequests,
  offeredTools,
  openCodexWorld,
  writeCodexHome,
} from "./codex-world.js";

const worlds: CliWorld[] = [];
async function world(...args: Parameters<typeof createCodexWorld>): Promise<CliWorld> {
  const created = await createCodexWorld(...args);
  worlds.push(created);
  return created;
}
afterEach(async () => {
  for (const created of worlds.splice(0)) await created.cleanup();
});

const parseReply = (text: string) => JSON.parse(text) as { markers: string[]; last_user: string };
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describeRuntimeContract({
  id: "codex",
  runtime: codexRuntime,
  open: openCodexWorld,
  wire: codexWire,
  session: {
    second: { systemPrompt: "SECOND SYSTEM PROMPT" },
    expect(w, first, second) {
      expect(first.result.exitCode).toBe(0);
      expect(first.result.nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
      const [request1, request2] = modelRequests(w);
      expect(inputMessages(request1)[0]).toEqual({
        role: "developer",
        text: "You are a test agent. Reply with JSON.",
      });
      const messages2 = inputMessages(request2);
      expect(messages2[0]).toEqual({ role: "developer", text: "SECOND SYSTEM PROMPT" });
      expect(messages2.filter((m) => m.role === "user").map((m) => m.text)).toEqual(
        expect.arrayContaining(["TURN-1 hello", "TURN-2 go on"]),
      );
      expect(second.observer.commands[0]).toEqual(
        expect.arrayContaining(["resume", first.result.nativeSessionId as string, "-"]),
      );
      for (const argv of [...first.observer.commands, ...second.observer.commands])
        expect(argv.join(" ")).not.toMatch(/TURN-|SYSTEM PROMPT|test agent/);
    },
  },
  // Only `write` allowed: codex offers apply_patch alone, and the write is an apply_patch call.
  toolCall: {
    tools: ["write"],
    expect(w) {
      expect(offeredTools(modelRequests(w).at(-1))).toEqual(["apply_patch"]);
    },
  },
  handoffWrite: {
    expect(_w, { observer }, layout) {
      const argv = observer.commands[0] ?? [];
      expect(argv[argv.indexOf("--add-dir") + 1]).toBe(layout.contextHandoff);
      expect(argv.filter((arg) => arg === "--add-dir")).toHaveLength(1);
    },
  },
  // codex rejects the patch before running it, so its exec stream has no item for it: the one failed
  // write is read from codex's session file, and the model's tool result is codex's refusal. (The
  // contract world takes /tmp out of the sandbox's writable roots, where every scene lives.)
  outsideWrite: {
    expect(w, { observer }) {
      expect(observer.toolCalls).toHaveLength(1);
      expect(observer.toolCalls[0]).toMatchObject({
        tool: "write",
        ok: false,
        args: { source: "session_file" },
        result: expect.stringContaining("patch rejected: writing outside of the project"),
      });
      const outputs = JSON.stringify(modelRequests(w).at(-1)?.body ?? {});
      expect(outputs).toContain("patch rejected: writing outside of the project");
    },
  },
  // codex's events carry token counts but no price, and sssf prices nothing: cost is 0. Its context
  // is the last prompt plus the output.
  usage: {
    cost: () => 0,
    contextTokens: (counts) => (counts.input ?? 0) + (counts.cacheRead ?? 0) + (counts.output ?? 0),
  },
  bigPrompt: {
    expect(w, { request }) {
      expect(inputMessages(modelRequests(w)[0]).at(-1)?.text).toBe(request.prompt);
    },
  },
  hang: {
    timeouts: { idleMs: 15_000, wallMs: 90_000 },
    expect(_w, { result }) {
      expect(result.nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
    },
  },
  // No config.toml: codex's built-in openai provider, whose models the catalog lists.
  unknownModel: {
    model: "gpt-typo",
    request: (w) => ({ env: { ...w.env, CODEX_HOME: path.join(w.root, "plain-codex") } }),
    expect(_w, { result }) {
      expect(result.error).toContain(CODEX_TEST_MODEL);
    },
  },
});

describe("codex runtime (real codex CLI against the fake model)", () => {
  it("continues the recorded thread when the engine lost the native id, and never resumes a non-UUID", async () => {
    const w = await world();
    const first = await codexRuntime.send(codexRequest(w, { prompt: "TURN-1 a" }), codexObserver());
    const second = await codexRuntime.send(
      codexRequest(w, { prompt: "TURN-2 b", resume: true }),
      codexObserver(),
    );
    expect(second.nativeSessionId).toBe(first.nativeSessionId);
    expect(parseReply(second.text).markers).toEqual(["TURN-1", "TURN-2"]);

    const observer = codexObserver();
    const bad = await codexRuntime.send(
      codexRequest(w, { resume: true, nativeSessionId: "my-thread" }),
      observer,
    );
    expect(bad).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(bad.error).toContain("not a UUID");
    expect(observer.pids).toEqual([]);

    const missing = "01a22baf-0000-7000-8000-000000000000";
    const gone = await codexRuntime.send(
      codexRequest(w, { resume: true, nativeSessionId: missing }),
      codexObserver(),
    );
    expect(gone).toMatchObject({ ok: false, errorKind: "exit_nonzero" });
    expect(gone.error).toContain(`no rollout found for thread id ${missing}`);
  }, 120_000);

  it("reports a write through the shell as one bash tool call when every tool is allowed", async () => {
    const w = await world({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          writeFile: { path: "out/shell.txt", content: "via shell\n" },
        },
        { match: { afterToolResult: true }, reply: "written", repeat: true },
      ],
    });
    const shell = codexObserver();
    const viaShell = await codexRuntime.send(codexRequest(w, { prompt: "TURN-1 write it" }), shell);
    expect(viaShell).toMatchObject({ ok: true, text: "written" });
    expect(readFileSync(path.join(w.work, "out/shell.txt"), "utf8")).toBe("via shell\n");
    expect(shell.toolCalls).toHaveLength(1);
    expect(shell.toolCalls[0]).toMatchObject({ tool: "bash", ok: true });
    expect(shell.toolCalls[0]?.name).toMatch(/^bash: mkdir -p .*out.*shell\.txt/);
    const call = shell.toolCalls[0];
    expect(call && call.endedAt.getTime() >= call.startedAt.getTime()).toBe(true);
  }, 120_000);

  it("corrects a malformed JSON reply in the same codex thread, end to end through the engine", async () => {
    const valid = JSON.stringify({
      status: "success",
      summary: "fixed",
      artifacts: [],
      notes_for_next_agent: "",
    });
    const w = await world({
      steps: [
        {
          match: { text: "TURN-1" },
          reply: '{"status": "success", "summary": ',
          usage: { input: 100, output: 10 },
        },
        { match: { text: "status" }, reply: valid, usage: { input: 200, output: 20, cacheRead: 50 } },
      ],
    });
    const repo = engineRepo(w, { codingAgent: "codex", model: CODEX_TEST_MODEL, command: [codexBin] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 answer with the envelope",
      config: repo.config,
      runtimes: [codexRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    const rows = repo.query<{ attempt: number; reason: string; valid: number }>(
      "SELECT attempt, reason, valid FROM envelopes ORDER BY attempt",
    );
    expect(rows).toEqual([
      { attempt: 1, reason: "initial", valid: 0 },
      { attempt: 2, reason: "json_fix", valid: 1 },
    ]);
    const requests = modelRequests(w);
    expect(requests).toHaveLength(2);
    expect(
      inputMessages(requests[1]).some((m) => m.role === "user" && m.text.includes("TURN-1 answer")),
    ).toBe(true);
    const [session] = repo.query<{ input_tokens: number; output_tokens: number; cache_read_tokens: number }>(
      "SELECT input_tokens, output_tokens, cache_read_tokens FROM sessions",
    );
    expect(session).toEqual({ input_tokens: 300, output_tokens: 30, cache_read_tokens: 50 });
  }, 180_000);

  it("does not let codex's endless reconnect lines keep a dead endpoint alive", async () => {
    const w = await world();
    const env = {
      ...w.env,
      ...writeCodexHome(path.join(w.root, "dead-codex"), `http://127.0.0.1:${await freePort()}`),
    };
    const observer = codexObserver();
    const request = codexRequest(w, { env, timeouts: { idleMs: 7000, wallMs: 90_000 } });
    const result = await codexRuntime.send(request, observer);
    expect(result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
    expect(result.error).toContain("retried its connection");
    expect(processGroupAlive(observer.pids[0] as number)).toBe(false);
  }, 120_000);

  it("offers only the shell, read-only, for read", async () => {
    const w = await world();
    const observer = codexObserver();
    const readOnly = await codexRuntime.send(
      codexRequest(w, { tools: ["read"], sessionId: "s-read" }),
      observer,
    );
    expect(readOnly.ok).toBe(true);
    const [read] = modelRequests(w);
    expect(offeredTools(read).sort()).toEqual(["exec_command", "view_image", "write_stdin"]);
    expect(observer.commands[0]).toEqual(expect.arrayContaining(["-s", "read-only"]));
  }, 120_000);

  it("rejects unknown tools, a failed turn and a model the endpoint refuses, and makes no other connection", async () => {
    const w = await world(
      {
        steps: [
          {
            match: { model: "gpt-nope" },
            error: { status: 404, message: "The model `gpt-nope` does not exist" },
          },
          { match: { text: "BAD400" }, error: { status: 400, message: "bad thing TEST" } },
        ],
      },
      { bare: true },
    );
    const tools = await codexRuntime.send(codexRequest(w, { tools: ["read", "browse"] }), codexObserver());
    expect(tools).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(tools.error).toContain('"browse"');
    expect(tools.error).toContain("read, bash, edit, write, grep, find, ls");

    const failedTurn = await codexRuntime.send(codexRequest(w, { prompt: "BAD400" }), codexObserver());
    expect(failedTurn).toMatchObject({ ok: false, errorKind: "agent_error", exitCode: 1 });
    expect(failedTurn.error).toContain("bad thing TEST");

    const rejected = await codexRuntime.send(codexRequest(w, { model: "gpt-nope" }), codexObserver());
    expect(rejected).toMatchObject({ ok: false, errorKind: "model_unknown" });
    expect(rejected.error).toContain('model "gpt-nope"');

    expect((await codexRuntime.send(codexRequest(w), codexObserver())).ok).toBe(true);
    expect(w.server.egress()).toEqual([]);
  }, 120_000);

  it("doctor finds the installed binary, its version, the model and the key variable", async () => {
    const w = await world();
    const checks = await codexRuntime.doctor?.({
      agent: "agent",
      model: CODEX_TEST_MODEL,
      command: [codexBin],
      env: w.env,
      cwd: w.work,
    });
    expect(checks?.every((check) => check.ok)).toBe(true);
    expect(checks?.map((check) => check.item)).toEqual([
      "binary",
      "version",
      "config",
      "model",
      "FAKE_API_KEY",
    ]);
    expect(checks?.find((check) => check.item === "version")?.detail).toContain("0.171.0");
    expect(existsSync(checks?.[0]?.detail ?? "")).toBe(true);
    expect(JSON.stringify(checks)).not.toContain("sk-fake");
  }, 120_000);
});
