import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { TRACE_TABLES } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { rebuildDatabase } from "../../src/trace/rebuild.js";
import { Tracer } from "../../src/trace/tracer.js";
import { openRawSqlite, readRows } from "../helpers/raw-sqlite.js";
import { eventRow, sessionRecords, sessionRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("rebuild");
const ADW_IDS = ["a1b2c3d4", "b2c3d4e5", "c3d4e5f6"];

/** Traces three sessions the way the engine does: one db, one tracer and events.jsonl per session. */
async function traceThreeSessions(): Promise<{ sessionsDir: string; dbPath: string }> {
  const sessionsDir = path.join(tempDir(), "adw_data", "sessions");
  const dbPath = path.join(tempDir(), "adw_data", "sssf.db");
  const store = await openTraceStore(dbPath);
  const tracers = ADW_IDS.map(
    (adwId) => new Tracer({ store, eventsFile: path.join(sessionsDir, adwId, "events.jsonl"), maxBatch: 7 }),
  );
  const streams = ADW_IDS.map((adwId, index) => sessionRecords(adwId, Date.UTC(2025, 0, 1 + index)));
  // Interleave the sessions, as concurrent runs would.
  for (let step = 0; streams.some((stream) => step < stream.length); step += 1) {
    streams.forEach((stream, index) => {
      const record = stream[step];
      if (record !== undefined) tracers[index]!.write(record);
    });
  }
  for (const tracer of tracers) await tracer.close();
  await store.close();
  return { sessionsDir, dbPath };
}

function snapshot(dbPath: string): Record<string, unknown[]> {
  const db = openRawSqlite(dbPath, { readonly: true });
  const tables = Object.fromEntries(TRACE_TABLES.map((table) => [table, readRows(db, table)]));
  db.close();
  return tables;
}

describe("rebuildDatabase", () => {
  it("rebuilds a database equal to the traced one, table by table", async () => {
    const { sessionsDir, dbPath } = await traceThreeSessions();
    const rebuiltPath = path.join(tempDir(), "rebuilt", "sssf.db");
    const result = await rebuildDatabase({ sessionsDir, dbPath: rebuiltPath });
    expect(result).toMatchObject({ sessions: 3, skippedLines: 0, backupPath: null });
    expect(result.records).toBe(ADW_IDS.length * sessionRecords("x", 0).length);
    const original = snapshot(dbPath);
    expect(original.sessions).toHaveLength(3);
    expect(original.events!.length).toBeGreaterThan(50);
    expect(snapshot(rebuiltPath)).toEqual(original);
  });

  it("moves an existing database aside before rebuilding over it", async () => {
    const { sessionsDir, dbPath } = await traceThreeSessions();
    const before = snapshot(dbPath);
    const db = openRawSqlite(dbPath);
    db.prepare("UPDATE sessions SET archived = 1").run();
    db.close();
    const result = await rebuildDatabase({ sessionsDir, dbPath });
    expect(result.backupPath).toMatch(/sssf\.db\.bak-\d{8}T\d{9}Z$/);
    expect(existsSync(`${result.backupPath}-wal`)).toBe(false);
    const backup = snapshot(result.backupPath!);
    expect(backup.sessions!.every((row) => (row as { archived: number }).archived === 1)).toBe(true);
    expect(snapshot(dbPath)).toEqual(before);
    const second = await rebuildDatabase({ sessionsDir, dbPath });
    expect(second.backupPath).not.toBe(result.backupPath);
    expect(
      readdirSync(path.dirname(dbPath)).filter(
        (name) => name.includes(".bak-") && !/-(?:wal|shm)$/.test(name),
      ),
    ).toHaveLength(2);
  });

  it("moves a damaged database aside untouched", async () => {
    const { sessionsDir } = await traceThreeSessions();
    const dbPath = path.join(tempDir(), "damaged.db");
    writeFileSync(dbPath, "not a database at all");
    const result = await rebuildDatabase({ sessionsDir, dbPath });
    expect(readFileSync(result.backupPath!, "utf8")).toBe("not a database at all");
    expect(snapshot(dbPath).sessions).toHaveLength(3);
  });

  it("skips and counts a truncated last line and other bad lines", async () => {
    const { sessionsDir } = await traceThreeSessions();
    const file = path.join(sessionsDir, ADW_IDS[0]!, "events.jsonl");
    const extra = eventRow(ADW_IDS[0]!, "evt_extra", "2025-02-01T00:00:00.000Z");
    appendFileSync(file, `${JSON.stringify({ table: "events", row: extra })}\n`);
    appendFileSync(
      file,
      '{"table":"nope","row":{}}\n[1,2]\n{"table":"events","row":{"id":"evt_no_fields"}}\n\n',
    );
    appendFileSync(
      file,
      JSON.stringify({ table: "events", row: eventRow(ADW_IDS[0]!, "evt_cut", "t") }).slice(0, 40),
    );
    const rebuiltPath = path.join(tempDir(), "rebuilt.db");
    const result = await rebuildDatabase({ sessionsDir, dbPath: rebuiltPath });
    expect(result.skippedLines).toBe(4);
    const events = snapshot(rebuiltPath).events as { id: string }[];
    expect(events.some((row) => row.id === "evt_extra")).toBe(true);
    expect(events.some((row) => row.id === "evt_cut" || row.id === "evt_no_fields")).toBe(false);
  });

  it("reproduces where each run worked, and leaves those columns null for records written before them", async () => {
    const sessionsDir = path.join(tempDir(), "sessions");
    const worktreeRun = sessionRow("w1", "2025-03-01T00:00:00.000Z", { status: "success", accepted: 1 });
    const inPlaceRun = sessionRow("p1", "2025-03-02T00:00:00.000Z", {
      worktree: null,
      branch: null,
      base_ref: null,
    });
    const { worktree, branch, base_ref, checkout, ...olderRun } = sessionRow(
      "o1",
      "2025-03-03T00:00:00.000Z",
    );
    for (const [adwId, row] of [
      ["w1", worktreeRun],
      ["p1", inPlaceRun],
      ["o1", olderRun],
    ] as const) {
      mkdirSync(path.join(sessionsDir, adwId), { recursive: true });
      writeFileSync(
        path.join(sessionsDir, adwId, "events.jsonl"),
        `${JSON.stringify({ table: "sessions", row })}\n`,
      );
    }
    const dbPath = path.join(tempDir(), "sssf.db");
    expect(await rebuildDatabase({ sessionsDir, dbPath })).toMatchObject({ records: 3, skippedLines: 0 });
    const rows = snapshot(dbPath).sessions as Record<string, unknown>[];
    const byId = new Map(rows.map((row) => [row.adw_id, row]));
    expect(byId.get("w1")).toEqual(worktreeRun);
    expect(byId.get("w1")).toMatchObject({
      worktree: "/work/project/adws/adw_data/.worktrees/w1",
      branch: "sssf/w1",
      base_ref: expect.stringMatching(/^[0-9a-f]{40}$/),
      checkout: "/work/project",
    });
    expect([worktree, branch, base_ref, checkout].every((value) => value !== null)).toBe(true);
    expect(byId.get("p1")).toEqual(inPlaceRun);
    expect(byId.get("o1")).toEqual({
      ...olderRun,
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
    });
  });

  it("ignores directories without events.jsonl and refuses a missing sessions directory", async () => {
    const sessionsDir = path.join(tempDir(), "sessions");
    mkdirSync(path.join(sessionsDir, "empty-session"), { recursive: true });
    mkdirSync(path.join(sessionsDir, "one"), { recursive: true });
    writeFileSync(
      path.join(sessionsDir, "one", "events.jsonl"),
      `${JSON.stringify({ table: "events", row: eventRow("one", "evt_1", "2025-01-01T00:00:00.000Z") })}`,
    );
    const dbPath = path.join(tempDir(), "sssf.db");
    expect(await rebuildDatabase({ sessionsDir, dbPath })).toMatchObject({
      sessions: 1,
      records: 1,
      skippedLines: 0,
    });
    let thrown: unknown;
    try {
      await rebuildDatabase({ sessionsDir: path.join(tempDir(), "nowhere"), dbPath });
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code === "usage").toBe(true);
    expect(snapshot(dbPath).events).toHaveLength(1);
  });
});
