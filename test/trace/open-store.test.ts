import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import type { TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { readTable } from "../../src/trace/store-queries.js";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { eventRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("open-store");

describe("openTraceStore on a SQLite file", () => {
  it("creates the directory, sets WAL, busy timeout and synchronous, and migrates", async () => {
    const dbPath = path.join(tempDir(), "nested", "adw_data", "sssf.db");
    const db = await openTraceStore(dbPath);
    expect(await db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(await db.pragma("busy_timeout", { simple: true })).toBe(30000);
    expect(await db.pragma("synchronous", { simple: true })).toBe(1);
    expect(await db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    await db.close();
    expect(existsSync(dbPath)).toBe(true);
  });

  it("opens an existing database read-only", async () => {
    const dbPath = path.join(tempDir(), "sssf.db");
    await (await openTraceStore(dbPath)).close();
    const db = await openTraceStore(dbPath, { readonly: true });
    expect(db.readonly).toBe(true);
    expect(await readTable(db, "sessions")).toEqual([]);
    await expect(db.run("DELETE FROM sessions")).rejects.toThrow(/readonly/);
    await db.close();
  });

  it("throws a usage error naming the path when a read-only database is missing", async () => {
    const dbPath = path.join(tempDir(), "missing", "sssf.db");
    let thrown: unknown;
    try {
      await openTraceStore(dbPath, { readonly: true });
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code === "usage" && thrown.exitCode === 2).toBe(true);
    expect((thrown as Error).message).toContain(dbPath);
    expect(existsSync(path.dirname(dbPath))).toBe(false);
  });
});

describe("TraceStore.upsert", () => {
  it("replaces rows by primary key, including composite keys", async () => {
    const db = await openTraceStore(path.join(tempDir(), "sssf.db"));
    const row = eventRow("a1", "evt_1", "2025-01-01T00:00:00.000Z");
    await db.upsert([{ table: "events", row }]);
    await db.upsert([{ table: "events", row: { ...row, name: "renamed", ok: 1 } }]);
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
    await db.upsert([{ table: "agent_sessions", row: agent }]);
    await db.upsert([{ table: "agent_sessions", row: { ...agent, sends: 2 } }]);
    await db.upsert([{ table: "agent_sessions", row: { ...agent, agent: "reviewer" } }]);
    expect(await readTable(db, "events")).toEqual([{ ...row, name: "renamed", ok: 1 }]);
    expect((await readTable(db, "agent_sessions")).map((r) => [r.agent, r.sends])).toEqual([
      ["builder", 2],
      ["reviewer", 1],
    ]);
    await db.close();
  });

  it("stores fields a record lacks as null and rejects unknown tables", async () => {
    const db = await openTraceStore(path.join(tempDir(), "sssf.db"));
    const {
      ended_at: _ended,
      duration_ms: _duration,
      ...partial
    } = eventRow("a1", "evt_1", "2025-01-01T00:00:00.000Z");
    await db.upsert([{ table: "events", row: partial } as unknown as TraceRecord]);
    expect((await readTable(db, "events"))[0]).toMatchObject({
      id: "evt_1",
      ended_at: null,
      duration_ms: null,
    });
    await expect(db.upsert([{ table: "nope", row: {} } as unknown as TraceRecord])).rejects.toThrow(
      /Unknown trace table/,
    );
    await db.close();
  });
});
