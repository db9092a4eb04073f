import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { PRIMARY_KEYS, TRACE_TABLES, type TraceTable } from "../../src/trace/events.js";
import { openSqliteStore } from "../../src/trace/sqlite/sqlite-store.js";
import { firstColumn } from "../../src/trace/store.js";
import { migrateStore as migrate, SCHEMA_VERSION } from "../../src/trace/store-schema.js";
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

describe("migrate", async () => {
  it("creates the trace tables with exactly the columns, types and keys of events.ts", async () => {
    const db = openSqliteStore(":memory:");
    await migrate(db);
    const rows = rowsByTable();
    expect([...rows.keys()].sort()).toEqual([...TRACE_TABLES].sort());
    const tables = firstColumn(
      await db.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
    );
    expect(tables).toEqual([...TRACE_TABLES].sort());
    for (const table of TRACE_TABLES) {
      const info = (await db.pragma(`table_info(${table})`)) as ColumnInfo[];
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
    const costs = ((await db.pragma("table_info(sessions)")) as ColumnInfo[]).find(
      (column) => column.name === "cost_usd",
    );
    expect(costs?.type).toBe("REAL");
    const endedAt = ((await db.pragma("table_info(phases)")) as ColumnInfo[]).find(
      (column) => column.name === "ended_at",
    );
    expect(endedAt?.notnull).toBe(0);
    await db.close();
  });

  it("creates the query indexes", async () => {
    const db = openSqliteStore(":memory:");
    await migrate(db);
    const indexed = async (table: string): Promise<string[]> => {
      const list = (await db.pragma(`index_list(${table})`)) as { name: string; origin: string }[];
      const columns: string[] = [];
      for (const index of list.filter((one) => one.origin === "c")) {
        const info = (await db.pragma(`index_info(${index.name})`)) as { name: string }[];
        columns.push(info.map((c) => c.name).join(","));
      }
      return columns.sort();
    };
    expect(await indexed("events")).toEqual(["adw_id,started_at", "phase_id"]);
    expect(await indexed("phases")).toEqual(["adw_id,number"]);
    expect(await indexed("envelopes")).toEqual(["adw_id"]);
    expect(await indexed("gate_results")).toEqual(["adw_id"]);
    expect(await indexed("processes")).toEqual(["adw_id"]);
    expect(await indexed("sessions")).toEqual(["started_at"]);
    await db.close();
  });

  it("is idempotent and records the schema version", async () => {
    const file = path.join(tempDir(), "trace.db");
    const db = openSqliteStore(file);
    await migrate(db);
    await db.run(
      "INSERT INTO events (id, adw_id, type, name, started_at, payload) VALUES ('e1', 'a', 'log', 'n', 't', '{}')",
    );
    await migrate(db);
    await db.close();
    const reopened = openSqliteStore(file);
    await migrate(reopened);
    expect(await reopened.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(await reopened.get("SELECT count(*) AS n FROM events")).toEqual({ n: 1 });
    await reopened.close();
  });

  it("adds the workspace columns to a version 1 database and keeps its rows", async () => {
    const file = path.join(tempDir(), "v1.db");
    const db = openSqliteStore(file);
    await migrate(db);
    // Back to schema version 1: the sessions table as it was before migration 2.
    for (const column of ["worktree", "branch", "base_ref", "checkout"]) {
      await db.exec(`ALTER TABLE sessions DROP COLUMN ${column}`);
    }
    await db.pragma("user_version = 1");
    await db.run(
      `INSERT INTO sessions (adw_id, workflow, request, status, cwd, started_at, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cost_usd, archived) VALUES ('old', 'prompt', 'r', 'success', '/r', 't', 0, 0, 0, 0, 0, 0)`,
    );
    await migrate(db);
    expect(await db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const columns = ((await db.pragma("table_info(sessions)")) as ColumnInfo[]).map((column) => column.name);
    expect(columns.slice(-4)).toEqual(["worktree", "branch", "base_ref", "checkout"]);
    expect(await db.get("SELECT adw_id, cwd, worktree, branch, base_ref, checkout FROM sessions")).toEqual({
      adw_id: "old",
      cwd: "/r",
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
    });
    await db.close();
  });

  it("adds envelopes.accepted to a version 2 database, set on old rows by the acceptance rule", async () => {
    const file = path.join(tempDir(), "v2.db");
    const db = openSqliteStore(file);
    await migrate(db);
    await db.exec("ALTER TABLE envelopes DROP COLUMN accepted");
    await db.pragma("user_version = 2");
    const insert = (...values: unknown[]) =>
      db.run(
        `INSERT INTO envelopes (id, adw_id, phase_id, agent, attempt, reason, output_type, valid, status,
       envelope_json, raw_text, errors, created_at) VALUES (?, 'a', 'a-p01', 'x', 1, 'initial', 'T', ?, ?, ?, '', '[]', 't')`,
        values,
      );
    await insert("good", 1, "success", "{}");
    await insert("gated", 1, "success", "{}");
    await insert("failed", 1, "fail", "{}");
    await insert("invalid", 0, null, null);
    await db.run(
      "INSERT INTO gate_results (id, adw_id, phase_id, envelope_id, gate, ok, checks, violations, created_at) VALUES ('g', 'a', 'a-p01', 'gated', 'g', 0, '[]', '[]', 't')",
    );
    await migrate(db);
    expect(await db.all("SELECT id, accepted FROM envelopes ORDER BY id")).toEqual([
      { id: "failed", accepted: 0 },
      { id: "gated", accepted: 0 },
      { id: "good", accepted: 1 },
      { id: "invalid", accepted: 0 },
    ]);
    await db.close();
  });

  it("refuses a database written by a newer schema", async () => {
    const db = openSqliteStore(":memory:");
    await db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    let thrown: unknown;
    try {
      await migrate(db);
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code === "usage").toBe(true);
    expect(String(thrown)).toMatch(/newer than this sssf supports/);
    await db.close();
  });
});
