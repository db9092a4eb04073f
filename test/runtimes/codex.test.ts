import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/library.js";
import { codexRuntime } from "../../src/runtimes/codex/index.js";
import { processGroupAlive } from "../../src/util/process-group.js";
import { promptWorkflow } from "../../src/workflows/prompt.js";
import { type CliWorld, engineRepo } from "./cli-harness.js";
import {
  CODEX_TEST_MODEL,
  codexBin,
  codexObserver,
  codexRequest,
  createCodexWorld,
  inputMessages,
  modelRequests,
  offeredTools,
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

describe("codex runtime (real codex CLI against the fake model)", () => {
  it("continues one thread across sends, with the system prompt and the prompt never in argv", async () => {
    const w = await world();
    const observer = codexObserver();
    const first = await codexRuntime.send(codexRequest(w, { prompt: "TURN-1 hello" }), observer);
    expect(first).toMatchObject({ ok: true, exitCode: 0 });
    expect(first.nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(parseReply(first.text).markers).toEqual(["TURN-1"]);

    const second = await codexRuntime.send(
      codexRequest(w, {
        prompt: "TURN-2 go on",
        resume: true,
        nativeSessionId: first.nativeSessionId,
        systemPrompt: "SECOND SYSTEM PROMPT",
      }),
      observer,
    );
    expect(second).toMatchObject({ ok: true, nativeSessionId: first.nativeSessionId });
    expect(parseReply(second.text).markers).toEqual(["TURN-1", "TURN-2"]);

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
    expect(observer.commands[1]).toEqual(
      expect.arrayContaining(["resume", first.nativeSessionId as string, "-"]),
    );
    for (const argv of observer.commands)
      expect(argv.join(" ")).not.toMatch(/TURN-|SYSTEM PROMPT|test agent/);
  }, 120_000);

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

  it("reports one ToolCall per real tool call: the shell, and apply_patch when only write is allowed", async () => {
    const w = await world({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          writeFile: { path: "out/shell.txt", content: "via shell\n" },
        },
        {
          match: { text: "TURN-2", afterToolResult: false },
          writeFile: { path: "notes.md", content: "# Notes\n" },
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

    const patch = codexObserver();
    const request = codexRequest(w, {
      prompt: "TURN-2 write notes",
      tools: ["write"],
      sessionId: "sssf-other",
    });
    const viaPatch = await codexRuntime.send(request, patch);
    expect(viaPatch).toMatchObject({ ok: true, text: "written" });
    expect(readFileSync(path.join(w.work, "notes.md"), "utf8")).toBe("# Notes\n");
    expect(patch.toolCalls).toHaveLength(1);
    expect(patch.toolCalls[0]).toMatchObject({ tool: "write", name: "write: notes.md", ok: true });
    const call = patch.toolCalls[0];
    expect(call && call.endedAt.getTime() >= call.startedAt.getTime()).toBe(true);
    expect(offeredTools(modelRequests(w).at(-1))).toEqual(["apply_patch"]);
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

  it("fails a hung model with idle_timeout and leaves no process behind", async () => {
    const w = await world({ steps: [{ match: { text: "HANG" }, hang: true }] });
    const observer = codexObserver();
    const request = codexRequest(w, { prompt: "TURN-1 HANG", timeouts: { idleMs: 8000, wallMs: 90_000 } });
    const result = await codexRuntime.send(request, observer);
    expect(result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
    expect(result.nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(observer.pids).toHaveLength(1);
    expect(processGroupAlive(observer.pids[0] as number)).toBe(false);
  }, 120_000);

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

  it("reports each send's own usage from codex's cumulative counters, and the context size", async () => {
    const w = await world({
      steps: [
        { match: { text: "TURN-1" }, usage: { input: 1000, output: 50, cacheRead: 200 } },
        { match: { text: "TURN-2" }, usage: { input: 2000, output: 70, cacheRead: 300 } },
      ],
    });
    const observer = codexObserver();
    const first = await codexRuntime.send(codexRequest(w, { prompt: "TURN-1" }), observer);
    const second = await codexRuntime.send(
      codexRequest(w, { prompt: "TURN-2", resume: true, nativeSessionId: first.nativeSessionId }),
      observer,
    );
    const usage = (input: number, output: number, cacheRead: number) => ({
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: 0,
      costUsd: 0,
    });
    expect(first.usage).toEqual(usage(1000, 50, 200));
    expect(second.usage).toEqual(usage(2000, 70, 300));
    expect(observer.usages).toEqual([usage(1000, 50, 200), usage(2000, 70, 300)]);
    const total = observer.usages.reduce((sum, u) => sum + u.inputTokens, 0);
    expect(total).toBe(3000);
    expect(second.contextTokens).toBe(2000 + 300 + 70);
  }, 120_000);

  it("offers no tools for tools: [] and only the shell, read-only, for read", async () => {
    const w = await world();
    expect(
      await codexRuntime.send(codexRequest(w, { tools: [], sessionId: "s-none" }), codexObserver()),
    ).toMatchObject({
      ok: true,
    });
    const observer = codexObserver();
    const readOnly = await codexRuntime.send(
      codexRequest(w, { tools: ["read"], sessionId: "s-read" }),
      observer,
    );
    expect(readOnly.ok).toBe(true);
    const [none, read] = modelRequests(w);
    expect(offeredTools(none)).toEqual([]);
    expect(offeredTools(read).sort()).toEqual(["exec_command", "view_image", "write_stdin"]);
    expect(observer.commands[0]).toEqual(expect.arrayContaining(["-s", "read-only"]));
  }, 120_000);

  it("rejects unknown tools and unknown models clearly, and makes no other connection", async () => {
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

    // No config.toml: codex's built-in openai provider, whose models the catalog lists.
    const env = { ...w.env, CODEX_HOME: path.join(w.root, "plain-codex") };
    const observer = codexObserver();
    const unknown = await codexRuntime.send(codexRequest(w, { env, model: "gpt-typo" }), observer);
    expect(unknown).toMatchObject({ ok: false, errorKind: "model_unknown" });
    expect(unknown.error).toContain('"gpt-typo"');
    expect(unknown.error).toContain(CODEX_TEST_MODEL);
    expect(observer.pids).toEqual([]);

    expect((await codexRuntime.send(codexRequest(w), codexObserver())).ok).toBe(true);
    expect(w.server.egress()).toEqual([]);
  }, 120_000);

  it("passes a 1 MB prompt through stdin", async () => {
    const w = await world();
    const prompt = `TURN-1 ${"x".repeat(1_000_000)} END`;
    const observer = codexObserver();
    const result = await codexRuntime.send(codexRequest(w, { prompt }), observer);
    expect(result.ok).toBe(true);
    expect(parseReply(result.text).markers).toEqual(["TURN-1"]);
    expect(inputMessages(modelRequests(w)[0]).at(-1)?.text).toBe(prompt);
    expect(observer.commands[0]?.join(" ").length).toBeLessThan(4000);
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
