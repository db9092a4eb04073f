import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { createUpserter, openTraceDb } from "../../src/trace/database.js";
import type { TraceRecord } from "../../src/trace/events.js";
import { readTable } from "../../src/trace/queries.js";
import { SCHEMA_VERSION } from "../../src/trace/schema.js";
import { eventRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("database");

describe("openTraceDb", () => {
  it("creates the directory, sets WAL, busy timeout and synchronous, and migrates", () => {
    const dbPath = path.join(tempDir(), "nested", "adw_data", "sssf.db");
    const db = openTraceDb(dbPath);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("busy_timeout", { simple: true })).toBe(30000);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    expect(existsSync(dbPath)).toBe(true);
  });

  it("opens an existing database read-only", () => {
    const dbPath = path.join(tempDir(), "sssf.db");
    openTraceDb(dbPath).close();
    const db = openTraceDb(dbPath, { readonly: true });
    expect(db.readonly).toBe(true);
    expect(readTable(db, "sessions")).toEqual([]);
    expect(() => db.prepare("DELETE FROM sessions").run()).toThrow(/readonly/);
    db.close();
  });

  it("throws a usage error naming the path when a read-only database is missing", () => {
    const dbPath = path.join(tempDir(), "missing", "sssf.db");
    let thrown: unknown;
    try {
      openTraceDb(dbPath, { readonly: true });
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code === "usage" && thrown.exitCode === 2).toBe(true);
    expect((thrown as Error).message).toContain(dbPath);
    expect(existsSync(path.dirname(dbPath))).toBe(false);
  });
});

describe("createUpserter", () => {
  it("replaces rows by primary key, including composite keys", () => {
    const db = openTraceDb(path.join(tempDir(), "sssf.db"));
    const upsert = createUpserter(db);
    const row = eventRow("a1", "evt_1", "2025-01-01T00:00:00.000Z");
    upsert({ table: "events", row });
    upsert({ table: "events", row: { ...row, name: "renamed", ok: 1 } });
    const agent = {
      adw_id: "a1",
      agent: "builder",
      session_id: "s1",
      model: "m",
      coding_agent: "pi",
      sends: 1,
      created_at: "2025-01-01T00:00:00.000Z",
      updated_at: "2025-01-01T00:00:00.000Z",
    };
    upsert({ table: "agent_sessions", row: agent });
    upsert({ table: "agent_sessions", row: { ...agent, sends: 2 } });
    upsert({ table: "agent_sessions", row: { ...agent, agent: "reviewer" } });
    expect(readTable(db, "events")).toEqual([{ ...row, name: "renamed", ok: 1 }]);
    expect(readTable(db, "agent_sessions").map((r) => [r.agent, r.sends])).toEqual([
      ["builder", 2],
      ["reviewer", 1],
    ]);
    db.close();
  });

  it("stores fields a record lacks as null and rejects unknown tables", () => {
    const db = openTraceDb(path.join(tempDir(), "sssf.db"));
    const upsert = createUpserter(db);
    const {
      ended_at: _ended,
      duration_ms: _duration,
      ...partial
    } = eventRow("a1", "evt_1", "2025-01-01T00:00:00.000Z");
    upsert({ table: "events", row: partial } as unknown as TraceRecord);
    expect(readTable(db, "events")[0]).toMatchObject({ id: "evt_1", ended_at: null, duration_ms: null });
    expect(() => upsert({ table: "nope", row: {} } as unknown as TraceRecord)).toThrow(/Unknown trace table/);
    db.close();
  });
});
