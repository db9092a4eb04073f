import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asStored, envelopeJson, Sandbox } from "../helpers/sandbox.js";

interface Row {
  [key: string]: unknown;
}

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const second = envelopeJson({ summary: "second reply", notes_for_next_agent: "corrected" });

/** Runs `sssf run prompt` with an agent whose replies are `replies`, in order. */
async function runWith(replies: string[]) {
  sb.setup([{ name: "assistant", turns: replies.map((reply) => ({ reply })) }]);
  return sb.run(["run", "prompt", "go"]);
}

/** The phase took the second reply after one correction in the same session, which `named` the problem. */
function expectCorrectedOnce(named: RegExp): void {
  const sends = sb.agent("assistant").sends();
  expect(sends).toHaveLength(2);
  expect(sends.map((send) => send.resume)).toEqual([false, true]);
  expect(sends[1]?.session_id).toBe(sends[0]?.session_id);
  expect(sends[1]?.prompt).toMatch(named);
  const rows = sb.query<Row>("SELECT attempt, reason, valid, status, errors FROM envelopes ORDER BY attempt");
  expect(rows.map((row) => [row.attempt, row.reason, row.valid, row.status])).toEqual([
    [1, "initial", 0, null],
    [2, "json_fix", 1, "success"],
  ]);
  expect(String(rows[0]?.errors)).toMatch(named);
  const [phase] = sb.query<Row>("SELECT status FROM phases WHERE kind = 'agent'");
  expect(phase?.status).toBe("success");
}

function acceptedEnvelope(): unknown {
  const [session] = sb.query<Row>("SELECT adw_id FROM sessions");
  const file = path.join(sb.sessionDir(String(session?.adw_id)), "assistant/envelope.json");
  return JSON.parse(readFileSync(file, "utf8"));
}

describe("envelope extraction through the CLI: the phase corrects instead of accepting the wrong object", () => {
  it("a cut-off report whose nested object has its own status: corrected, the second reply accepted", async () => {
    const cutOff =
      'Report:\n```json\n{"status": "fail", "summary": "half done", "details": {"status": "success", "note": "inner"}, "artifacts": [';
    const result = await runWith([cutOff, second]);
    expect(result.code).toBe(0);
    expectCorrectedOnce(/is cut off: the reply ends before its closing/);
    expect(acceptedEnvelope()).toEqual({
      status: "success",
      summary: "second reply",
      artifacts: [],
      notes_for_next_agent: "corrected",
    });
  });

  it("a JS/YAML-style object in prose is never repaired into an envelope", async () => {
    const result = await runWith(["Done. In the config I set {status: success, retries: 3}.", second]);
    expect(result.code).toBe(0);
    expectCorrectedOnce(/is not JSON: its keys are bare words/);
  });

  it("an earlier quoted example does not win over the agent's invalid final report, nor flip its status", async () => {
    const reply = [
      "The expected shape, for example:",
      '```json\n{"status": "success", "summary": "example"}\n```',
      "My report:",
      '```json\n{"status": "fail", "summary": "blocked on the schema", "artifacts": "migrations/001.sql"}\n```',
    ].join("\n");
    const fixed = JSON.stringify({ status: "fail", summary: "blocked on the schema", artifacts: [] });
    const result = await runWith([reply, fixed]);
    // The agent's own status stands: the phase fails with its summary instead of passing on the example.
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("blocked on the schema");
    const sends = sb.agent("assistant").sends();
    expect(sends).toHaveLength(2);
    expect(sends[1]?.prompt).toMatch(/`artifacts`: expected array, got string/);
    expect(sb.query<Row>("SELECT attempt, valid, status FROM envelopes ORDER BY attempt")).toEqual([
      { attempt: 1, valid: 0, status: null },
      { attempt: 2, valid: 1, status: "fail" },
    ]);
  });

  it("an unmatched { before the envelope and an unmatched } after it do not hide it", async () => {
    const reply = `Use { to open a block. ${envelopeJson({ summary: "braces" })} and } to close it.`;
    const result = await runWith([reply]);
    expect(result.code).toBe(0);
    expect(sb.agent("assistant").sends()).toHaveLength(1);
    expect(acceptedEnvelope()).toMatchObject({ status: "success", summary: "braces" });
  });

  it("a raw NUL byte in the exec result line is named to the agent, not lost as 'no result line'", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: '{"status": "success", "summary": "before\u0000after"}' }, { reply: second }],
      },
    ]);
    // The reply holds a NUL inside the envelope's summary; the scripted agent writes it as JSON's
    // `\u0000` escape, and this wrapper puts a raw NUL byte on the result line instead.
    const wrapper = path.join(sb.agentsDir, "raw-nul.mjs");
    writeFileSync(
      wrapper,
      [
        'import { spawn } from "node:child_process";',
        "const [program, ...args] = JSON.parse(process.argv[2]);",
        'const child = spawn(program, args, { stdio: ["inherit", "pipe", "inherit"] });',
        'child.stdout.setEncoding("utf8");',
        'let pending = "";',
        'const raw = (lines) => lines.replaceAll("\\\\u0000", "\\u0000");',
        'child.stdout.on("data", (chunk) => {',
        '  const lines = (pending + chunk).split("\\n");',
        "  pending = lines.pop();",
        '  for (const line of lines) process.stdout.write(raw(line) + "\\n");',
        "});",
        'child.on("close", (code) => {',
        "  process.stdout.write(raw(pending));",
        "  process.exitCode = code ?? 1;",
        "});",
      ].join("\n"),
    );
    const command = [process.execPath, wrapper, JSON.stringify(sb.agent("assistant").command)];
    sb.writeConfig({
      agents: [
        { name: "assistant", coding_agent: "exec", command, sandbox: { allow_write: [sb.agentsDir] } },
      ],
    });
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(0);
    expectCorrectedOnce(/holds a raw NUL byte \(U\+0000\)/);
    const [session] = sb.query<Row>("SELECT adw_id FROM sessions");
    const raw = readFileSync(path.join(sb.sessionDir(String(session?.adw_id)), "assistant/raw_output.jsonl"));
    expect(raw.includes(0)).toBe(true);
    const [first] = sb.query<Row>("SELECT raw_text FROM envelopes WHERE attempt = 1");
    expect(String(first?.raw_text)).toContain(asStored("before\u0000after"));
  });
});
