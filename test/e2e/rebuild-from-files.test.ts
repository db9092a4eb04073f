/**
 * `sssf db rebuild` from whichever record files a session still has: a real run through the CLI (a
 * scripted exec agent that calls tools, replies without JSON, then corrects itself; a second run whose
 * agent reports failure), its database kept aside, then the rebuild with each kind of file deleted or
 * events.jsonl cut, compared cell by cell with the original for what those files can recover.
 */

import { cpSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRACE_TABLES, type TraceTable } from "../../src/trace/events.js";
import { openSqliteStore } from "../../src/trace/sqlite/sqlite-store.js";
import { readTable } from "../../src/trace/store-queries.js";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";

type Row = Record<string, unknown>;
type Dump = Record<TraceTable, Row[]>;

let sb: Sandbox;
let pristine: string;
let original: Dump;
let accepted: string;
let failed: string;

const sessionsDir = () => path.join(sb.dir, "adws/adw_data/sessions");

async function dump(dbPath: string): Promise<Dump> {
  const db = openSqliteStore(dbPath, { readonly: true });
  try {
    const tables = await Promise.all(TRACE_TABLES.map(async (t) => [t, await readTable(db, t)]));
    return Object.fromEntries(tables) as Dump;
  } finally {
    await db.close();
  }
}

/** The session folders as the runs left them, then `change` applied to each. */
function restore(change: (sessionDir: string) => void = () => {}): void {
  rmSync(sessionsDir(), { recursive: true, force: true });
  cpSync(pristine, sessionsDir(), { recursive: true });
  for (const name of readdirSync(sessionsDir())) change(path.join(sessionsDir(), name));
}

async function rebuild(
  name: string,
): Promise<{ code: number | null; stdout: string; stderr: string; db: Dump }> {
  const dbPath = path.join(sb.dir, `${name}.db`);
  const result = await sb.run(["db", "rebuild", "--db", dbPath]);
  return { ...result, db: result.code === 0 ? await dump(dbPath) : (undefined as unknown as Dump) };
}

const pick = (row: Row, columns: readonly string[]) => Object.fromEntries(columns.map((c) => [c, row[c]]));
const keyed = (rows: Row[], key: (row: Row) => string, columns: readonly string[]) =>
  Object.fromEntries(rows.map((row) => [key(row), pick(row, columns)]));

/** Columns each file set recovers without events.jsonl (docs/trace.md's table). */
const ENVELOPE_COLUMNS = [
  "adw_id",
  "phase_id",
  "agent",
  "attempt",
  "reason",
  "output_type",
  "valid",
  "status",
  "envelope_json",
  "raw_text",
  "errors",
  "accepted",
];
const envelopeKey = (row: Row) => `${row.phase_id} ${row.agent} ${row.attempt}`;
const PHASE_COLUMNS = [
  "id",
  "adw_id",
  "number",
  "name",
  "kind",
  "owner",
  "status",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cost_usd",
];
const AGENT_SESSION_COLUMNS = ["adw_id", "agent", "session_id", "model", "coding_agent", "sends"];
const TOOL_CALL_COLUMNS = [
  "adw_id",
  "phase_id",
  "type",
  "name",
  "agent",
  "ok",
  "started_at",
  "ended_at",
  "duration_ms",
  "payload",
];
const toolCallKey = (row: Row) => `${row.agent} ${row.name} ${row.started_at}`;
const toolCalls = (d: Dump) => d.events.filter((e) => e.type === "tool_call");

beforeAll(async () => {
  sb = new Sandbox();
  sb.setup([
    {
      name: "assistant",
      turns: [
        {
          tool_calls: [
            { tool: "bash", args: { command: "ls -la" }, result: "total 0", duration_ms: 3 },
            { tool: "write", args: { path: "a.md" }, write_file: { path: "a.md", content: "a" } },
          ],
          reply: "oops not json",
          usage: { input_tokens: 10, output_tokens: 5, cost: 0.001 },
        },
        {
          reply: envelopeJson({ summary: "first run", artifacts: ["a.md"] }),
          usage: { input_tokens: 7, output_tokens: 3, cache_read_tokens: 2, cost: 0.0005 },
        },
        { reply: JSON.stringify({ status: "fail", summary: "second run failed" }) },
      ],
    },
  ]);
  const one = await sb.run(["run", "prompt", "one"]);
  expect(one.code).toBe(0);
  accepted = adwIdFrom(one.stdout);
  const two = await sb.run(["run", "prompt", "two"]);
  expect(two.code).toBe(1);
  failed = adwIdFrom(two.stdout);
  original = await dump(path.join(sb.dir, "adws/adw_data/sssf.db"));
  pristine = path.join(sb.agentsDir, "pristine-sessions");
  cpSync(sessionsDir(), pristine, { recursive: true });
}, 900_000);

afterAll(() => sb?.cleanup());

describe("sssf db rebuild with a kind of record file gone", () => {
  const others: [string, (dir: string) => void][] = [
    ["envelope.json", (dir) => rmSync(path.join(dir, "assistant/envelope.json"), { force: true })],
    ["agent_map.json", (dir) => rmSync(path.join(dir, "agent_map.json"))],
    ["raw_output.jsonl", (dir) => rmSync(path.join(dir, "assistant/raw_output.jsonl"))],
    ["prompts/", (dir) => rmSync(path.join(dir, "assistant/prompts"), { recursive: true })],
  ];
  for (const [kind, remove] of others) {
    it(`without ${kind}, events.jsonl alone gives the same database, nothing added twice and no report`, async () => {
      restore(remove);
      const result = await rebuild(`no-${kind.replace(/\W/g, "")}`);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/adw_id /);
      expect(result.db).toEqual(original);
    }, 300_000);
  }

  it("without events.jsonl: phases, envelopes (valid and invalid), agent sessions, tool calls and usage from the other files", async () => {
    restore((dir) => rmSync(path.join(dir, "events.jsonl")));
    const result = await rebuild("no-events");
    expect(result.code).toBe(0);
    const { db } = result;
    expect(keyed(db.envelopes, envelopeKey, ENVELOPE_COLUMNS)).toEqual(
      keyed(original.envelopes, envelopeKey, ENVELOPE_COLUMNS),
    );
    expect(db.envelopes.map((e) => e.valid).sort()).toEqual([0, 1, 1]);
    const agentPhases = original.phases.filter((p) => p.kind === "agent");
    expect(keyed(db.phases, (p) => String(p.id), PHASE_COLUMNS)).toEqual(
      keyed(agentPhases, (p) => String(p.id), PHASE_COLUMNS),
    );
    expect(keyed(db.agent_sessions, (a) => `${a.adw_id} ${a.agent}`, AGENT_SESSION_COLUMNS)).toEqual(
      keyed(original.agent_sessions, (a) => `${a.adw_id} ${a.agent}`, AGENT_SESSION_COLUMNS),
    );
    expect(keyed(toolCalls(db), toolCallKey, TOOL_CALL_COLUMNS)).toEqual(
      keyed(toolCalls(original), toolCallKey, TOOL_CALL_COLUMNS),
    );
    const usage = [
      "adw_id",
      "input_tokens",
      "output_tokens",
      "cache_read_tokens",
      "cache_write_tokens",
      "cost_usd",
    ];
    expect(keyed(db.sessions, (s) => String(s.adw_id), usage)).toEqual(
      keyed(original.sessions, (s) => String(s.adw_id), usage),
    );
    // What no other file holds: said per session, never invented.
    expect(
      db.sessions.every((s) => s.status === "interrupted" && s.workflow === "" && s.request === ""),
    ).toBe(true);
    expect(db.events.filter((e) => e.type !== "tool_call")).toEqual([]);
    expect([db.gate_results, db.processes, db.steps]).toEqual([[], [], []]);
    expect(original.gate_results.length).toBeGreaterThan(0);
    for (const adwId of [accepted, failed])
      expect(result.stdout).toMatch(
        new RegExp(
          `adw_id ${adwId}: no events\\.jsonl; rebuilt 1 phase\\(s\\), \\d envelope\\(s\\), 1 agent session\\(s\\).*not recoverable: workflow, request, cwd and outcome, engineer phases`,
        ),
      );
  }, 300_000);

  it("without events.jsonl nor raw_output.jsonl: the accepted envelope from envelope.json, the phases from prompts/", async () => {
    restore((dir) => {
      rmSync(path.join(dir, "events.jsonl"));
      rmSync(path.join(dir, "assistant/raw_output.jsonl"));
    });
    const result = await rebuild("no-events-raw");
    expect(result.code).toBe(0);
    const columns = [
      "phase_id",
      "agent",
      "attempt",
      "reason",
      "output_type",
      "valid",
      "status",
      "envelope_json",
      "accepted",
    ];
    const acceptedRows = original.envelopes.filter((e) => e.accepted === 1);
    expect(keyed(result.db.envelopes, envelopeKey, columns)).toEqual(
      keyed(acceptedRows, envelopeKey, columns),
    );
    expect(result.db.phases.map((p) => [p.id, p.status])).toEqual(
      original.phases.filter((p) => p.kind === "agent").map((p) => [p.id, p.status]),
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `adw_id ${accepted}: .*assistant/raw_output\\.jsonl.*the replies of 1 of assistant's send\\(s\\)`,
      ),
    );
  }, 300_000);

  it("with only agent_map.json left: the agent sessions, and the report says what else is gone", async () => {
    restore((dir) => {
      rmSync(path.join(dir, "events.jsonl"));
      rmSync(path.join(dir, "assistant"), { recursive: true });
    });
    const result = await rebuild("map-only");
    expect(result.code).toBe(0);
    const columns = ["adw_id", "agent", "session_id", "model", "coding_agent"];
    expect(keyed(result.db.agent_sessions, (a) => String(a.adw_id), columns)).toEqual(
      keyed(original.agent_sessions, (a) => String(a.adw_id), columns),
    );
    expect(result.db.envelopes).toEqual([]);
  }, 300_000);

  it("a sessions folder with nothing recoverable is an error naming it (exit 2), the database left as it is", async () => {
    restore((dir) => rmSync(dir, { recursive: true }));
    writeFileSync(path.join(sb.dir, "kept.db"), "");
    const before = statSync(path.join(sb.dir, "kept.db")).mtimeMs;
    const result = await sb.run(["db", "rebuild", "--db", path.join(sb.dir, "kept.db")]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`no session to recover in ${sessionsDir()}`);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
    expect(statSync(path.join(sb.dir, "kept.db")).mtimeMs).toBe(before);
  }, 300_000);
});

describe("sssf db rebuild with events.jsonl cut short", () => {
  it("at any byte (fast-check, fixed seed): every envelope and tool call once, the files filling what the cut lost", async () => {
    const lengths = new Map<string, number>();
    for (const name of readdirSync(pristine))
      lengths.set(name, statSync(path.join(pristine, name, "events.jsonl")).size);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0.02, max: 0.98, noNaN: true }), async (fraction) => {
        restore((dir) => {
          const file = path.join(dir, "events.jsonl");
          const size = lengths.get(path.basename(dir)) as number;
          truncateSync(file, Math.floor(size * fraction));
        });
        const cutMidLine = [...lengths.keys()].some((name) => {
          const text = readFileSync(path.join(sessionsDir(), name, "events.jsonl"), "utf8");
          return text !== "" && !text.endsWith("\n");
        });
        const result = await rebuild(`cut-${run++}`);
        expect(result.code).toBe(0);
        const { db } = result;
        const columns = ENVELOPE_COLUMNS.filter((c) => c !== "accepted");
        expect(keyed(db.envelopes, envelopeKey, columns)).toEqual(
          keyed(original.envelopes, envelopeKey, columns),
        );
        expect(db.envelopes).toHaveLength(original.envelopes.length);
        expect(keyed(toolCalls(db), toolCallKey, ["name", "agent", "phase_id", "started_at"])).toEqual(
          keyed(toolCalls(original), toolCallKey, ["name", "agent", "phase_id", "started_at"]),
        );
        expect(toolCalls(db)).toHaveLength(toolCalls(original).length);
        const identity = ["adw_id", "agent", "session_id", "model", "coding_agent"];
        expect(keyed(db.agent_sessions, (a) => String(a.adw_id), identity)).toEqual(
          keyed(original.agent_sessions, (a) => String(a.adw_id), identity),
        );
        expect(db.sessions.map((s) => s.adw_id).sort()).toEqual([accepted, failed].sort());
        if (cutMidLine)
          expect(result.stdout).toMatch(/unreadable line\(s\) skipped[\s\S]*events\.jsonl cut short/);
      }),
      { seed: 35_0403, numRuns: 4 },
    );
  }, 900_000);
});
