import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { PRIMARY_KEYS, TRACE_TABLES, type TraceTable } from "../../src/trace/events.js";
import { migrate, SCHEMA_VERSION } from "../../src/trace/schema.js";
import { openSqlite } from "../../src/trace/sqlite.js";
import { sessionRecords, useTempDir } from "./trace-fixtures.js";

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

const tempDir = useTempDir("schema");

/** One fully typed row per table: the compiler guarantees these have exactly the fields of events.ts. */
function rowsByTable(): Map<TraceTable, Record<string, unknown>> {
  const rows = new Map<TraceTable, Record<string, unknown>>();
  for (const record of sessionRecords("a1b2c3d4", Date.UTC(2025, 0, 1))) {
    if (!rows.has(record.table)) rows.set(record.table, record.row as unknown as Record<string, unknown>);
  }
  return rows;
}

describe("migrate", () => {
  it("creates the trace tables with exactly the columns, types and keys of events.ts", () => {
    const db = openSqlite(":memory:");
    migrate(db);
    const rows = rowsByTable();
    expect([...rows.keys()].sort()).toEqual([...TRACE_TABLES].sort());
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([...TRACE_TABLES].sort());
    for (const table of TRACE_TABLES) {
      const info = db.pragma(`table_info(${table})`) as ColumnInfo[];
      const row = rows.get(table)!;
      expect(info.map((column) => column.name)).toEqual(Object.keys(row));
      for (const column of info) {
        const value = row[column.name];
        if (typeof value === "string") expect(column.type).toBe("TEXT");
        if (typeof value === "number") expect(["INTEGER", "REAL"]).toContain(column.type);
      }
      const keys = info.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
      expect(keys.map((column) => column.name)).toEqual(PRIMARY_KEYS[table]);
    }
    const costs = (db.pragma("table_info(sessions)") as ColumnInfo[]).find(
      (column) => column.name === "cost_usd",
    );
    expect(costs?.type).toBe("REAL");
    const endedAt = (db.pragma("table_info(phases)") as ColumnInfo[]).find(
      (column) => column.name === "ended_at",
    );
    expect(endedAt?.notnull).toBe(0);
    db.close();
  });

  it("creates the query indexes", () => {
    const db = openSqlite(":memory:");
    migrate(db);
    const indexed = (table: string): string[] =>
      (db.pragma(`index_list(${table})`) as { name: string; origin: string }[])
        .filter((index) => index.origin === "c")
        .map((index) =>
          (db.pragma(`index_info(${index.name})`) as { name: string }[]).map((c) => c.name).join(","),
        )
        .sort();
    expect(indexed("events")).toEqual(["adw_id,started_at", "phase_id"]);
    expect(indexed("phases")).toEqual(["adw_id,number"]);
    expect(indexed("envelopes")).toEqual(["adw_id"]);
    expect(indexed("gate_results")).toEqual(["adw_id"]);
    expect(indexed("processes")).toEqual(["adw_id"]);
    expect(indexed("sessions")).toEqual(["started_at"]);
    db.close();
  });

  it("is idempotent and records the schema version", () => {
    const file = path.join(tempDir(), "trace.db");
    const db = openSqlite(file);
    migrate(db);
    db.prepare(
      "INSERT INTO events (id, adw_id, type, name, started_at, payload) VALUES ('e1', 'a', 'log', 'n', 't', '{}')",
    ).run();
    migrate(db);
    db.close();
    const reopened = openSqlite(file);
    migrate(reopened);
    expect(reopened.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(reopened.prepare("SELECT count(*) FROM events").pluck().get()).toBe(1);
    reopened.close();
  });

  it("adds the workspace columns to a version 1 database and keeps its rows", () => {
    const file = path.join(tempDir(), "v1.db");
    const db = openSqlite(file);
    migrate(db);
    // Back to schema version 1: the sessions table as it was before migration 2.
    for (const column of ["worktree", "branch", "base_ref", "checkout"]) {
      db.exec(`ALTER TABLE sessions DROP COLUMN ${column}`);
    }
    db.pragma("user_version = 1");
    db.prepare(
      `INSERT INTO sessions (adw_id, workflow, request, status, cwd, started_at, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cost_usd, archived) VALUES ('old', 'prompt', 'r', 'success', '/r', 't', 0, 0, 0, 0, 0, 0)`,
    ).run();
    migrate(db);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const columns = (db.pragma("table_info(sessions)") as ColumnInfo[]).map((column) => column.name);
    expect(columns.slice(-4)).toEqual(["worktree", "branch", "base_ref", "checkout"]);
    expect(
      db.prepare("SELECT adw_id, cwd, worktree, branch, base_ref, checkout FROM sessions").get(),
    ).toEqual({
      adw_id: "old",
      cwd: "/r",
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
    });
    db.close();
  });

  it("adds envelopes.accepted to a version 2 database, set on old rows by the acceptance rule", () => {
    const file = path.join(tempDir(), "v2.db");
    const db = openSqlite(file);
    migrate(db);
    db.exec("ALTER TABLE envelopes DROP COLUMN accepted");
    db.pragma("user_version = 2");
    const insert = db.prepare(
      `INSERT INTO envelopes (id, adw_id, phase_id, agent, attempt, reason, output_type, valid, status,
       envelope_json, raw_text, errors, created_at) VALUES (?, 'a', 'a-p01', 'x', 1, 'initial', 'T', ?, ?, ?, '', '[]', 't')`,
    );
    insert.run("good", 1, "success", "{}");
    insert.run("gated", 1, "success", "{}");
    insert.run("failed", 1, "fail", "{}");
    insert.run("invalid", 0, null, null);
    db.prepare(
      "INSERT INTO gate_results (id, adw_id, phase_id, envelope_id, gate, ok, checks, violations, created_at) VALUES ('g', 'a', 'a-p01', 'gated', 'g', 0, '[]', '[]', 't')",
    ).run();
    migrate(db);
    expect(db.prepare("SELECT id, accepted FROM envelopes ORDER BY id").all()).toEqual([
      { id: "failed", accepted: 0 },
      { id: "gated", accepted: 0 },
      { id: "good", accepted: 1 },
      { id: "invalid", accepted: 0 },
    ]);
    db.close();
  });

  it("refuses a database written by a newer schema", () => {
    const db = openSqlite(":memory:");
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    let thrown: unknown;
    try {
      migrate(db);
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code === "usage").toBe(true);
    expect(String(thrown)).toMatch(/newer than this sssf supports/);
    db.close();
  });
});
