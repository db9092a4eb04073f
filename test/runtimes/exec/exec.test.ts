import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExecSandbox, sendExec } from "./exec-fixture.js";

let sandbox: ExecSandbox;
beforeEach(() => {
  sandbox = new ExecSandbox();
});
afterEach(() => sandbox.cleanup());

describe("exec runtime", () => {
  it("reports tool calls, sums usage and really writes the file", async () => {
    const agent = sandbox.scripted([
      {
        reply: "done",
        tool_calls: [
          { tool: "write", write_file: { path: "notes.md", content: "# Notes\n" } },
          { tool: "bash", args: { command: "ls -la src" }, result: "total 0", duration_ms: 40 },
        ],
        usage: { input_tokens: 100, output_tokens: 20, cost: 0.5, context_tokens: 900 },
      },
    ]);
    const before = Date.now();
    const { result, observed } = await sendExec(sandbox.request(agent.command));
    const after = Date.now();

    expect(result).toMatchObject({ ok: true, text: "done", exitCode: 0, contextTokens: 900 });
    expect(readFileSync(join(sandbox.cwd, "notes.md"), "utf8")).toBe("# Notes\n");
    expect(observed.toolCalls.map((call) => call.name)).toEqual(["write: notes.md", "bash: ls -la src"]);
    const bash = observed.toolCalls[1]!;
    expect(bash).toMatchObject({
      tool: "bash",
      args: { command: "ls -la src" },
      result: "total 0",
      ok: true,
    });
    for (const call of observed.toolCalls) {
      expect(call.startedAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(call.endedAt.getTime()).toBeLessThanOrEqual(after);
      expect(call.endedAt.getTime()).toBeGreaterThanOrEqual(call.startedAt.getTime());
    }
    expect(bash.endedAt.getTime() - bash.startedAt.getTime()).toBeGreaterThanOrEqual(40);
    expect(observed.starts).toHaveLength(1);
    expect(observed.ends).toMatchObject([{ status: "exited", exitCode: 0, pid: observed.starts[0]!.pid }]);
    expect(agent.sends()).toMatchObject([
      { session_id: "builder-1", resume: false, prompt: "Build the thing", turn: 0 },
    ]);
    expect(sandbox.rawLines().at(-1)).toBe('{"type":"result","text":"done"}');
  });

  it("sums two usage lines", async () => {
    const inline = [
      "const line = (o) => console.log(JSON.stringify(o));",
      'line({ type: "usage", input_tokens: 10, output_tokens: 2, cache_read_tokens: 3, cache_write_tokens: 1, cost: 0.25 });',
      'line({ type: "usage", input_tokens: 5, output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 2, cost: 0.5, context_tokens: 42 });',
      'line({ type: "result", text: "ok" });',
    ].join("\n");
    const { result, observed } = await sendExec(sandbox.request([process.execPath, "-e", inline]));
    expect(result.ok).toBe(true);
    expect(result.usage).toEqual({
      inputTokens: 15,
      outputTokens: 6,
      cacheReadTokens: 3,
      cacheWriteTokens: 3,
      costUsd: 0.75,
    });
    expect(result.contextTokens).toBe(42);
    expect(observed.usages).toHaveLength(2);
  });

  it("creates a session, continues it, and refuses a wrong create or resume", async () => {
    const agent = sandbox.scripted([
      { reply: "first" },
      { reply: "second" },
      { reply: "spare", repeat: true },
    ]);
    const first = await sendExec(sandbox.request(agent.command));
    expect(first.result).toMatchObject({ ok: true, text: "first" });
    expect(existsSync(join(sandbox.sessionDir, "builder-1.jsonl"))).toBe(true);

    const second = await sendExec(sandbox.request(agent.command, { resume: true, prompt: "More" }));
    expect(second.result).toMatchObject({ ok: true, text: "second" });

    const recreate = await sendExec(sandbox.request(agent.command));
    expect(recreate.result).toMatchObject({ ok: false, errorKind: "exit_nonzero", exitCode: 1 });
    expect(recreate.result.error).toContain("already exists");

    const unknown = await sendExec(sandbox.request(agent.command, { resume: true, sessionId: "other" }));
    expect(unknown.result).toMatchObject({ ok: false, errorKind: "agent_error", exitCode: 1 });
    expect(unknown.result.error).toContain("unknown session");

    const sends = agent.sends();
    expect(sends.map((send) => [send.session_id, send.resume, send.turn])).toEqual([
      ["builder-1", false, 0],
      ["builder-1", true, 1],
      ["builder-1", false, null],
      ["other", true, null],
    ]);
    const transcript = readFileSync(join(sandbox.sessionDir, "builder-1.jsonl"), "utf8").trim().split("\n");
    expect(transcript.map((line) => JSON.parse(line).turn)).toEqual([0, 1]);
  });

  it("picks turns by match, keeps repeat turns, and reports an exhausted script", async () => {
    const agent = sandbox.scripted([
      { match: "review", reply: "reviewed", repeat: true },
      { reply: "built" },
    ]);
    const build = await sendExec(sandbox.request(agent.command, { sessionId: "s1" }));
    const review = await sendExec(
      sandbox.request(agent.command, { sessionId: "s2", prompt: "please review" }),
    );
    const again = await sendExec(sandbox.request(agent.command, { sessionId: "s3", prompt: "review again" }));
    const exhausted = await sendExec(sandbox.request(agent.command, { sessionId: "s4" }));
    expect([build.result.text, review.result.text, again.result.text]).toEqual([
      "built",
      "reviewed",
      "reviewed",
    ]);
    expect(exhausted.result).toMatchObject({ ok: false, errorKind: "exit_nonzero", exitCode: 3 });
    expect(exhausted.result.error).toContain("script exhausted");
  });

  it("fails a non-zero exit with the tail of stderr", async () => {
    const agent = sandbox.scripted([
      { reply: "partial", stderr: `${"x".repeat(5000)}\nboom: model refused\n`, exit_code: 2 },
    ]);
    const { result, observed } = await sendExec(sandbox.request(agent.command));
    expect(result).toMatchObject({ ok: false, errorKind: "exit_nonzero", exitCode: 2, text: "partial" });
    expect(result.error).toContain("agent builder: command exited with code 2");
    expect(result.error).toContain("boom: model refused");
    expect(result.error!.length).toBeLessThan(2300);
    expect(observed.ends[0]).toMatchObject({ status: "exited", exitCode: 2 });
  });

  it("fails an exit 0 without a result line", async () => {
    const agent = sandbox.scripted([{ no_result: true, usage: { input_tokens: 7 } }]);
    const { result } = await sendExec(sandbox.request(agent.command));
    expect(result).toMatchObject({ ok: false, errorKind: "no_result", exitCode: 0 });
    expect(result.usage.inputTokens).toBe(7);
    expect(result.error).toContain('without a {"type":"result"} line');
  });

  it("keeps malformed and unknown lines in raw_output.jsonl and ignores them", async () => {
    const inline = [
      'console.log("starting up");',
      'console.log("{\\"type\\": \\"tool_call\\", broken");',
      'console.log(JSON.stringify({ type: "mystery", value: 1 }));',
      'console.log(JSON.stringify({ type: "log", message: "halfway" }));',
      'process.stdout.write(JSON.stringify({ type: "result", text: "fine" }));',
    ].join("\n");
    const { result, observed } = await sendExec(sandbox.request([process.execPath, "-e", inline]));
    expect(result).toMatchObject({ ok: true, text: "fine" });
    expect(observed.toolCalls).toEqual([]);
    expect(observed.logs).toEqual(["halfway"]);
    expect(sandbox.rawLines()).toEqual([
      "starting up",
      '{"type": "tool_call", broken',
      '{"type":"mystery","value":1}',
      '{"type":"log","message":"halfway"}',
      '{"type":"result","text":"fine"}',
    ]);
  });

  it("reports an agent without a command", async () => {
    const { result, observed } = await sendExec(sandbox.request(undefined));
    expect(result).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(result.error).toContain("`command`");
    expect(observed.starts).toEqual([]);
  });

  it("reports a command that does not exist", async () => {
    const { result } = await sendExec(sandbox.request(["sssf-no-such-agent-binary", "--json"]));
    expect(result).toMatchObject({ ok: false, errorKind: "spawn_failed" });
    expect(result.error).toContain("sssf-no-such-agent-binary");
    expect(result.error).toContain("ENOENT");
  });

  it("survives an agent that exits without reading its stdin", async () => {
    const big = "p".repeat(2_000_000);
    const inline = 'console.log(JSON.stringify({ type: "result", text: "early" }))';
    const { result } = await sendExec(sandbox.request([process.execPath, "-e", inline], { prompt: big }));
    expect(result).toMatchObject({ ok: true, text: "early" });
  });
});
