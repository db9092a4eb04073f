import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";

interface Row {
  [key: string]: unknown;
}

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("sssf run prompt (exec agents end to end)", () => {
  it("accepts a valid envelope on the first try and lays out the session exactly", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            reply: envelopeJson({ summary: "said hi", notes_for_next_agent: "none" }),
            usage: {
              input_tokens: 100,
              output_tokens: 20,
              cache_read_tokens: 5,
              cache_write_tokens: 7,
              cost: 0.01,
            },
          },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "say hi"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ACCEPTED");
    const adwId = adwIdFrom(result.stdout);
    expect(adwId).toMatch(/^[0-9a-f]{8}$/);

    const [session] = sb.query<Row>("SELECT * FROM sessions WHERE adw_id = ?", adwId);
    expect(session).toMatchObject({
      status: "success",
      accepted: 1,
      reason: "said hi",
      workflow: "prompt",
      request: "say hi",
      input_tokens: 100,
      output_tokens: 20,
      cache_read_tokens: 5,
      cache_write_tokens: 7,
      cost_usd: 0.01,
    });
    const phases = sb.query<Row>(
      "SELECT number, name, kind, owner, status FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    );
    expect(phases).toEqual([
      { number: 1, name: "request", kind: "engineer", owner: "engineer", status: "success" },
      { number: 2, name: "prompt", kind: "agent", owner: "assistant", status: "success" },
    ]);

    const dir = sb.sessionDir(adwId);
    const agentMap = JSON.parse(readFileSync(path.join(dir, "agent_map.json"), "utf8"));
    expect(agentMap.assistant).toEqual({
      session_id: expect.stringMatching(`^sssf-${adwId}-assistant-`),
      model: "",
      coding_agent: "exec",
    });
    expect(existsSync(path.join(dir, "context_handoff"))).toBe(true);
    expect(existsSync(path.join(dir, "assistant/exec_sessions"))).toBe(true);
    const user = readFileSync(path.join(dir, "assistant/prompts/user.md"), "utf8");
    expect(user).toContain("say hi");
    expect(user).toContain("## Report");
    expect(user).toContain("GenericOutput");
    expect(readFileSync(path.join(dir, "assistant/prompts/system.md"), "utf8")).toContain(`# ${adwId} agent`);
    expect(JSON.parse(readFileSync(path.join(dir, "assistant/envelope.json"), "utf8"))).toEqual({
      status: "success",
      summary: "said hi",
      artifacts: [],
      notes_for_next_agent: "none",
    });
    expect(readFileSync(path.join(dir, "assistant/raw_output.jsonl"), "utf8")).toContain('"type":"result"');
    const records = readFileSync(path.join(dir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(new Set(records.map((r) => r.table))).toEqual(
      new Set([
        "sessions",
        "phases",
        "events",
        "envelopes",
        "gate_results",
        "processes",
        "agent_sessions",
        "steps",
      ]),
    );
    const sends = sb.agent("assistant").sends();
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({ resume: false, session_id: agentMap.assistant.session_id });
  });

  it("takes a fenced JSON block wrapped in prose", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: `Done.\n\n\`\`\`json\n${envelopeJson({ summary: "fenced" })}\n\`\`\`\nBye.` }],
      },
    ]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(0);
    expect(sb.query<Row>("SELECT status, valid FROM envelopes")).toEqual([{ status: "success", valid: 1 }]);
  });

  it("corrects two malformed replies in the same session, then accepts the third", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            reply: "I did it! {summary: 'no status here'",
            usage: { input_tokens: 10, output_tokens: 1, cost: 0.001 },
          },
          {
            reply: '{"status": "great", "artifacts": "x"}',
            usage: { input_tokens: 20, output_tokens: 2, cost: 0.002 },
          },
          {
            reply: envelopeJson({ summary: "third time" }),
            usage: { input_tokens: 30, output_tokens: 3, cost: 0.003 },
          },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(0);
    const sends = sb.agent("assistant").sends();
    expect(sends).toHaveLength(3);
    expect(new Set(sends.map((s) => s.session_id)).size).toBe(1);
    expect(sends.map((s) => s.resume)).toEqual([false, true, true]);
    expect(sends[1]?.prompt).toContain("status");
    expect(sends[2]?.prompt).toContain("status");
    expect(sends[2]?.prompt).toContain("artifacts");
    const rows = sb.query<Row>("SELECT attempt, reason, valid, raw_text FROM envelopes ORDER BY attempt");
    expect(rows.map((r) => [r.attempt, r.reason, r.valid])).toEqual([
      [1, "initial", 0],
      [2, "json_fix", 0],
      [3, "json_fix", 1],
    ]);
    expect(rows[1]?.raw_text).toBe('{"status": "great", "artifacts": "x"}');
    const [session] = sb.query<Row>("SELECT input_tokens, output_tokens, cost_usd FROM sessions");
    expect(session?.input_tokens).toBe(60);
    expect(session?.output_tokens).toBe(6);
    expect(session?.cost_usd).toBeCloseTo(0.006, 10);
  });

  it("fails the phase and the run after three malformed replies, naming the fields", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: '{"summary": 3}', repeat: true }] }]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stdout).toMatch(/status/);
    expect(result.stdout).toMatch(/summary/);
    expect(sb.agent("assistant").sends()).toHaveLength(3);
    const [phase] = sb.query<Row>("SELECT status, error FROM phases WHERE kind = 'agent'");
    expect(phase?.status).toBe("fail");
    expect(String(phase?.error)).toMatch(/status.*summary|summary.*status/);
    expect(sb.query<Row>("SELECT status, accepted FROM sessions")).toEqual([{ status: "fail", accepted: 0 }]);
    expect(sb.query<Row>("SELECT count(*) AS n FROM envelopes WHERE valid = 0")).toEqual([{ n: 3 }]);
  });

  it("corrects a gate violation in the same session", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          { reply: envelopeJson({ summary: "wrote it", artifacts: ["notes.md"] }) },
          {
            match: "artifactsExist",
            tool_calls: [
              {
                tool: "write",
                args: { path: "notes.md" },
                write_file: { path: "notes.md", content: "notes\n" },
              },
            ],
            reply: envelopeJson({ summary: "really wrote it", artifacts: ["notes.md"] }),
          },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "write notes.md"]);
    expect(result.code).toBe(0);
    const sends = sb.agent("assistant").sends();
    expect(sends).toHaveLength(2);
    expect(sends[1]?.resume).toBe(true);
    expect(sends[1]?.prompt).toContain("notes.md");
    const gates = sb.query<Row>("SELECT gate, ok, checks FROM gate_results ORDER BY created_at, id");
    expect(gates.filter((g) => g.gate === "artifactsExist").map((g) => g.ok)).toEqual([0, 1]);
    expect(String(gates.at(-1)?.checks)).toContain("notes.md");
    expect(sb.query<Row>("SELECT reason FROM envelopes ORDER BY attempt").map((r) => r.reason)).toEqual([
      "initial",
      "gate_fix",
    ]);
    const events = sb.query<Row>(
      "SELECT type FROM events WHERE type IN ('gate_pass', 'gate_fail', 'tool_call') ORDER BY started_at, id",
    );
    expect(events.map((e) => e.type)).toContain("gate_fail");
    expect(events.map((e) => e.type)).toContain("tool_call");
  });

  it("fails when gate violations outlast the retries", async () => {
    sb.setup(
      [{ name: "assistant", turns: [{ reply: envelopeJson({ artifacts: ["ghost.md"] }), repeat: true }] }],
      {
        limits: { retries: 2 },
      },
    );
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("ghost.md");
    expect(sb.agent("assistant").sends()).toHaveLength(3);
    expect(
      sb.query<Row>("SELECT ok FROM gate_results WHERE gate = 'artifactsExist'").map((r) => r.ok),
    ).toEqual([0, 0, 0]);
  });

  it('fails the phase when the agent declares status "fail"', async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: JSON.stringify({ status: "fail", summary: "cannot reach the database" }) }],
      },
    ]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("cannot reach the database");
    expect(sb.query<Row>("SELECT status FROM phases WHERE kind = 'agent'")).toEqual([{ status: "fail" }]);
  });

  it("handles a 5 MB agent output", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            result_padding_bytes: 5 * 1024 * 1024,
            output_bytes: 1024 * 1024,
            reply: envelopeJson({ summary: "big" }),
          },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(0);
    const [row] = sb.query<Row>("SELECT length(raw_text) AS n, valid FROM envelopes");
    expect(Number(row?.n)).toBeGreaterThan(5 * 1024 * 1024);
    expect(row?.valid).toBe(1);
  });

  it("cuts a reply longer than limits.max_result_bytes to its tail before parsing", async () => {
    sb.setup(
      [
        {
          name: "assistant",
          turns: [{ result_padding_bytes: 50_000, reply: envelopeJson({ summary: "tail" }) }],
        },
      ],
      {
        limits: { max_result_bytes: 4096 },
      },
    );
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(0);
    const [row] = sb.query<Row>("SELECT length(raw_text) AS n, valid FROM envelopes");
    expect(row).toEqual({ n: 4096, valid: 1 });
    expect(
      sb.query<Row>("SELECT name FROM events WHERE name LIKE '%cut to its last 4096 bytes'"),
    ).toHaveLength(1);
  });

  it("reads the request from a prompt file", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: envelopeJson({ summary: "ok" }) }] }]);
    writeFileSync(path.join(sb.dir, "ask.md"), "Please do the thing described in this file.");
    const result = await sb.run(["run", "prompt", "ask.md"]);
    expect(result.code).toBe(0);
    expect(sb.agent("assistant").sends()[0]?.prompt).toContain("Please do the thing described in this file.");
  });

  it("uses --agent and refuses an unknown one before anything starts", async () => {
    sb.setup([
      { name: "first", turns: [{ reply: envelopeJson({ summary: "first" }) }] },
      { name: "second", turns: [{ reply: envelopeJson({ summary: "second" }) }] },
    ]);
    const ok = await sb.run(["run", "prompt", "go", "--agent", "second"]);
    expect(ok.code).toBe(0);
    expect(sb.agent("first").sends()).toHaveLength(0);
    expect(sb.agent("second").sends()).toHaveLength(1);
    const bad = await sb.run(["run", "prompt", "go", "--agent", "third"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--agent: no agent named "third".*first, second/);
    expect(sb.query<Row>("SELECT count(*) AS n FROM sessions")).toEqual([{ n: 1 }]);
  });

  it("joins a session with --adw-id: the agent resumes and phase numbers continue", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: envelopeJson({ summary: "one" }) }, { reply: envelopeJson({ summary: "two" }) }],
      },
    ]);
    const first = await sb.run(["run", "prompt", "first"]);
    const adwId = adwIdFrom(first.stdout);
    const second = await sb.run(["run", "prompt", "second", "--adw-id", adwId]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("(joined)");
    const sends = sb.agent("assistant").sends();
    expect(sends.map((s) => s.resume)).toEqual([false, true]);
    expect(sends[0]?.session_id).toBe(sends[1]?.session_id);
    const numbers = sb
      .query<Row>("SELECT number FROM phases WHERE adw_id = ? ORDER BY number", adwId)
      .map((r) => r.number);
    expect(numbers).toEqual([1, 2, 3, 4]);
  });

  it("fails cleanly when the agent process fails, with stderr's tail in the error", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ stderr: "fatal: model quota exhausted", exit_code: 4, no_result: true }],
      },
    ]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("model quota exhausted");
    const [proc] = sb.query<Row>("SELECT status, exit_code, stderr_tail FROM processes");
    expect(proc).toMatchObject({ status: "exited", exit_code: 4 });
    expect(String(proc?.stderr_tail)).toContain("model quota exhausted");
  });

  it("rejects unknown workflows and empty prompts with exit code 2", async () => {
    sb.setup([{ name: "assistant", turns: [] }]);
    const unknown = await sb.run(["run", "nope", "go"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown workflow "nope"');
    const empty = await sb.run(["run", "prompt", "  "]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("prompt is empty");
    expect(existsSync(path.join(sb.dir, "adws/adw_data/sessions"))).toBe(false);
  });
});
