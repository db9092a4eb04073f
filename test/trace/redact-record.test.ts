import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TABLE_COLUMNS } from "../../src/trace/columns.js";
import { TRACE_TABLES, type TraceRecord, type TraceTable } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { rebuildDatabase } from "../../src/trace/rebuild.js";
import { redactRecord } from "../../src/trace/redact-record.js";
import { Tracer } from "../../src/trace/tracer.js";
import { placeholder, registerSecretValues } from "../../src/util/secrets/redact.js";
import { openRawSqlite, readRows } from "../helpers/raw-sqlite.js";
import { leaksIn, leaksInFiles, PATTERN_SAMPLES, PATTERN_TEXT } from "../util/secrets/secret-fixtures.js";
import { useTempDir } from "./trace-fixtures.js";

const REDACTED = placeholder("secret-value");

const VALUE = "rec0rd-env-secret-VALUE-31";
registerSecretValues([VALUE]);
const SECRETS = [...PATTERN_SAMPLES, { kind: "env value", secret: VALUE }];
const HOSTILE = `${PATTERN_TEXT} ; value ${VALUE}`;

/** JSON columns, each with a document of the shape sssf writes there. */
const JSON_VALUES: Record<string, string> = {
  payload: JSON.stringify({ tool: "bash", args: { command: HOSTILE }, result: HOSTILE, api_key: VALUE }),
  envelope_json: JSON.stringify({ status: "success", summary: HOSTILE, details: { note: VALUE } }),
  errors: JSON.stringify([`summary: ${HOSTILE}`]),
  checks: JSON.stringify([{ item: HOSTILE, ok: false, note: VALUE }]),
  violations: JSON.stringify([HOSTILE]),
  command: JSON.stringify(["node", "agent.mjs", `--token=${VALUE}`, HOSTILE]),
};

/** Ids, names, enums, paths and refs: copied as they are (the engine reads some of them back). */
const KEPT: Record<TraceTable, string[]> = {
  sessions: [
    "adw_id",
    "workflow",
    "status",
    "cwd",
    "started_at",
    "ended_at",
    "worktree",
    "branch",
    "base_ref",
    "checkout",
    "host",
  ],
  phases: ["id", "adw_id", "name", "kind", "owner", "status", "started_at", "ended_at", "replayed_at"],
  events: ["id", "adw_id", "phase_id", "parent_id", "type", "agent", "started_at", "ended_at"],
  envelopes: ["id", "adw_id", "phase_id", "agent", "reason", "output_type", "created_at"],
  gate_results: ["id", "adw_id", "phase_id", "envelope_id", "gate", "created_at"],
  processes: ["id", "adw_id", "phase_id", "agent", "cwd", "status", "signal", "started_at", "ended_at"],
  agent_sessions: ["adw_id", "agent", "session_id", "model", "coding_agent", "created_at", "updated_at"],
  steps: ["id", "adw_id", "phase_id", "op", "input_hash", "created_at"],
};

/**
 * A row of `table` with every TEXT column holding secrets (JSON columns as JSON), numbers 0; with
 * `cleanKept`, the columns copied as they are hold plain words instead, as they do in a real trace.
 */
function hostileRecord(table: TraceTable, cleanKept = false): TraceRecord {
  const row: Record<string, unknown> = {};
  for (const [column, declaration] of Object.entries(TABLE_COLUMNS[table])) {
    const kept = cleanKept && KEPT[table].includes(column);
    row[column] = !declaration.startsWith("TEXT")
      ? 0
      : kept
        ? `${column}-1`
        : (JSON_VALUES[column] ?? `${column} ${HOSTILE}`);
  }
  return { table, row } as unknown as TraceRecord;
}

function keptColumns(record: TraceRecord): string[] {
  return Object.entries(record.row)
    .filter(([, value]) => typeof value === "string" && leaksIn("", value, SECRETS).length > 0)
    .map(([column]) => column)
    .sort();
}

describe("redactRecord", () => {
  it.each(TRACE_TABLES.map((table) => [table]))(
    "redacts every free-text and JSON column of %s, keeping JSON valid",
    (table) => {
      const record = hostileRecord(table);
      const redacted = redactRecord(record);
      expect(keptColumns(redacted)).toEqual([...KEPT[table]].sort());
      for (const [column, value] of Object.entries(redacted.row)) {
        if (JSON_VALUES[column] === undefined) continue;
        expect(() => JSON.parse(String(value)), column).not.toThrow();
        expect(String(value), column).toContain(REDACTED);
      }
      // The caller's row is never changed, and a second pass changes nothing.
      expect(record).toEqual(hostileRecord(table));
      expect(redactRecord(redacted)).toEqual(redacted);
    },
  );
});

const tempDir = useTempDir("redact-rebuild");

/** Every file of the database directory but the backups of an earlier database. */
function dbFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.includes(".bak-"))
    .map((entry) => path.join(dir, entry.name));
}

describe("the tracer and sssf db rebuild never store a secret", () => {
  it("the tracer writes events.jsonl and the db redacted, column by column", async () => {
    const dbPath = path.join(tempDir(), "sssf.db");
    const eventsFile = path.join(tempDir(), "sessions", "a1b2c3d4", "events.jsonl");
    const store = await openTraceStore(dbPath);
    const db = openRawSqlite(dbPath);
    const tracer = new Tracer({ store, eventsFile });
    for (const table of TRACE_TABLES) tracer.write(hostileRecord(table, true));
    await tracer.close();
    db.close();
    await store.close();
    expect(leaksInFiles([eventsFile, ...dbFiles(tempDir())], SECRETS)).toEqual([]);
  });

  it("rebuild redacts an old-style events.jsonl holding raw secrets in every column", async () => {
    const sessionsDir = path.join(tempDir(), "sessions");
    const dbPath = path.join(tempDir(), "db", "sssf.db");
    const file = path.join(sessionsDir, "a1b2c3d4", "events.jsonl");
    mkdirSync(path.dirname(file), { recursive: true });
    mkdirSync(path.dirname(dbPath), { recursive: true });
    // As an sssf before this change wrote it: the secrets verbatim, in the request, reason, errors…
    const lines = TRACE_TABLES.map((table) => JSON.stringify(hostileRecord(table, true)));
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect(leaksIn("old file", readFileSync(file), SECRETS)).toHaveLength(SECRETS.length);

    const result = await rebuildDatabase({ sessionsDir, dbPath });
    expect(result).toMatchObject({ sessions: 1, records: TRACE_TABLES.length, skippedLines: 0 });
    const db = openRawSqlite(dbPath, { readonly: true });
    const tables = Object.fromEntries(TRACE_TABLES.map((table) => [table, readRows(db, table)]));
    db.close();
    for (const table of TRACE_TABLES) {
      const rows = tables[table] ?? [];
      expect(rows, table).toHaveLength(1);
      expect(leaksIn(table, JSON.stringify(rows), SECRETS)).toEqual([]);
    }
    // Nor anywhere in the database's files (its WAL is folded in when the last connection closes).
    expect(leaksInFiles(dbFiles(path.dirname(dbPath)), SECRETS)).toEqual([]);
  });
});
