/**
 * The trace store contract suite, after the runtime contract (test/runtimes/runtime-contract.ts): one
 * function registers the same cases against any `TraceStore`. A store passes a way to make a fresh,
 * empty trace location (a file path, a PostgreSQL database URL) and to build an old or foreign
 * database there through its own raw connection.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import type { EventRow, SessionRow, TraceRecord } from "../../src/trace/events.js";
import { PRIMARY_KEYS, TRACE_TABLES } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { columnsAt, createTableSql } from "../../src/trace/schema.js";
import type { TraceStore } from "../../src/trace/store.js";
import {
  getSession,
  latestAcceptedEnvelope,
  listEvents,
  listEventsAfter,
  listSessions,
  listSessionsJson,
  maxPhaseNumber,
  readTable,
} from "../../src/trace/store-queries.js";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { displayTraceLocation } from "../../src/trace/trace-location.js";
import { LiveReader } from "../../src/ui/server/live-query.js";
import { loadColumns } from "../../src/ui/server/row-sql.js";
import { eventRow, sessionRecords, sessionRow } from "./trace-fixtures.js";

/** What a store's test file hands the suite. */
export interface TraceStoreWorld {
  /** A fresh location with no trace in it; `cleanup` removes it. */
  fresh(): Promise<{ location: string; cleanup(): Promise<void> }>;
  /** A raw connection to `location` that creates nothing of sssf's (for old and foreign databases). */
  raw(location: string): Promise<TraceStore>;
}

const T0 = Date.UTC(2025, 0, 1);
const ROOT = path.resolve(import.meta.dirname, "../..");

/** The same text as stored, or (Node 22's node:sqlite, PostgreSQL) with U+FFFD in place of each NUL. */
function sameText(read: unknown, written: string): void {
  expect([written, written.replaceAll("\0", "\uFFFD")]).toContain(read);
}

function event(adwId: string, index: number, overrides: Partial<EventRow> = {}): TraceRecord {
  const id = `evt_${String(index).padStart(6, "0")}`;
  return { table: "events", row: eventRow(adwId, id, new Date(T0 + index).toISOString(), overrides) };
}

// A writer in a process of its own: opens the trace and upserts its events in batches of 50.
const WRITER = `
import { openTraceStore } from ${JSON.stringify(path.join(ROOT, "src/trace/open-store.ts"))};
const [location, prefix, count] = process.argv.slice(1);
const store = await openTraceStore(location);
for (let at = 0; at < Number(count); at += 50) {
  const records = [];
  for (let i = at; i < Math.min(at + 50, Number(count)); i++) {
    const stamp = new Date(${T0} + i).toISOString();
    records.push({ table: "events", row: { id: prefix + "_" + i, adw_id: prefix, phase_id: null, parent_id: null,
      type: "tool_call", name: "bash: " + i, agent: null, ok: 1, started_at: stamp, ended_at: stamp, duration_ms: 0, payload: "{}" } });
  }
  await store.transaction((tx) => tx.upsert(records));
}
await store.close();
`;

function writerProcess(location: string, prefix: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", WRITER, location, prefix, String(count)],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`writer ${prefix} exited ${code}: ${stderr}`)),
    );
  });
}

/** Registers the contract's cases for the store `name` opens in `world`. */
export function describeTraceStoreContract(name: string, world: TraceStoreWorld): void {
  describe(`the ${name} trace store contract`, () => {
    async function withStore<T>(fn: (store: TraceStore, location: string) => Promise<T>): Promise<T> {
      const { location, cleanup } = await world.fresh();
      const store = await openTraceStore(location);
      try {
        return await fn(store, location);
      } finally {
        await store.close();
        await cleanup();
      }
    }

    it("writes every table's records and reads them back with their exact values", async () => {
      await withStore(async (store) => {
        const records = sessionRecords("a1b2c3d4", T0);
        await store.transaction((tx) => tx.upsert(records));
        for (const table of TRACE_TABLES) {
          // The last record of each primary key is the row.
          const rows = new Map<string, unknown>();
          for (const record of records.filter((r) => r.table === table)) {
            const row = record.row as unknown as Record<string, unknown>;
            rows.set(PRIMARY_KEYS[table].map((key) => String(row[key])).join("\u0001"), row);
          }
          const read = await readTable(store, table);
          expect(read.length, table).toBe(rows.size);
          for (const row of rows.values()) expect(read, table).toContainEqual(row);
        }
      });
    });

    it("keeps unicode, control characters, NUL, 1 MB values, numbers and nulls", async () => {
      await withStore(async (store) => {
        const big = "é✓🚀".repeat(87_382).slice(0, 1_048_576);
        const control = 'tab\tnew\nline\rbell\u0007esc\u001b del\u007f quote\' "double" back\\slash';
        const withNul = "before\0after";
        const session = sessionRow("c0ffee00", new Date(T0).toISOString(), {
          request: big,
          reason: control,
          cwd: withNul,
          input_tokens: 2 ** 40,
          cost_usd: 0.1234567,
          duration_ms: null,
          ended_at: null,
          pid: 0,
        });
        await store.transaction((tx) => tx.upsert([{ table: "sessions", row: session }]));
        const read = (await getSession(store, "c0ffee00")) as SessionRow;
        expect(read.request).toBe(big);
        expect(read.reason).toBe(control);
        sameText(read.cwd, withNul);
        expect(read.input_tokens).toBe(2 ** 40);
        expect(read.cost_usd).toBeCloseTo(0.1234567, 10);
        expect(read.duration_ms).toBeNull();
        expect(read.ended_at).toBeNull();
        expect(read.pid).toBe(0);
      });
    });

    it("upserts a repeated id: the last write wins, in one batch and across two", async () => {
      await withStore(async (store) => {
        await store.transaction((tx) =>
          tx.upsert([event("a1", 1, { name: "first" }), event("a1", 2), event("a1", 1, { name: "second" })]),
        );
        await store.upsert([event("a1", 2, { name: "third", ok: 0 })]);
        const events = await listEvents(store, "a1");
        expect(events.map((e) => [e.id, e.name, e.ok])).toEqual([
          ["evt_000001", "second", null],
          ["evt_000002", "third", 0],
        ]);
      });
    });

    it("takes batches from two writer processes at once and loses none", async () => {
      const { location, cleanup } = await world.fresh();
      try {
        await (await openTraceStore(location)).close();
        await Promise.all([writerProcess(location, "w1", 1000), writerProcess(location, "w2", 1000)]);
        const store = await openTraceStore(location, { readonly: true });
        try {
          expect((await listEvents(store, "w1")).length).toBe(1000);
          expect((await listEvents(store, "w2")).length).toBe(1000);
        } finally {
          await store.close();
        }
      } finally {
        await cleanup();
      }
    }, 60_000);

    it("rolls a transaction back when it throws, a nested one to its savepoint", async () => {
      await withStore(async (store) => {
        await expect(
          store.transaction(async (tx) => {
            await tx.upsert([event("rb", 1)]);
            throw new Error("refused");
          }),
        ).rejects.toThrow("refused");
        await store.transaction(async (tx) => {
          await tx.upsert([event("rb", 2)]);
          await tx
            .transaction(async (inner) => {
              await inner.upsert([event("rb", 3)]);
              throw new Error("inner refused");
            })
            .catch(() => undefined);
        });
        expect((await listEvents(store, "rb")).map((e) => e.id)).toEqual(["evt_000002"]);
      });
    });

    it("runs a transaction's statements alone: another caller's statement waits for it", async () => {
      await withStore(async (store) => {
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const tx = store.transaction(async (t) => {
          await t.upsert([event("iso", 1)]);
          await held;
          throw new Error("rolled back");
        });
        const outside = store.upsert([event("iso", 2)]);
        release();
        await expect(tx).rejects.toThrow("rolled back");
        await outside;
        expect((await listEvents(store, "iso")).map((e) => e.id)).toEqual(["evt_000002"]);
      });
    });

    it("opens read-only: reads work, writes are refused", async () => {
      const { location, cleanup } = await world.fresh();
      try {
        const writer = await openTraceStore(location);
        await writer.upsert(sessionRecords("r0r0r0r0", T0));
        await writer.close();
        const reader = await openTraceStore(location, { readonly: true });
        try {
          expect(reader.readonly).toBe(true);
          expect((await listSessions(reader)).map((s) => s.adw_id)).toEqual(["r0r0r0r0"]);
          await expect(reader.upsert([event("r0r0r0r0", 9)])).rejects.toThrow();
        } finally {
          await reader.close();
        }
      } finally {
        await cleanup();
      }
    });

    it("refuses a read-only open where there is no trace, naming the location", async () => {
      const { location, cleanup } = await world.fresh();
      try {
        const error = await openTraceStore(location, { readonly: true }).catch((e: unknown) => e);
        expect(isSssfError(error)).toBe(true);
        expect((error as Error).message).toContain(displayTraceLocation(location));
      } finally {
        await cleanup();
      }
    });

    it("reopens after close with the rows there, and refuses statements on the closed store", async () => {
      const { location, cleanup } = await world.fresh();
      try {
        const first = await openTraceStore(location);
        await first.upsert([event("re", 1)]);
        await first.close();
        expect(first.isOpen).toBe(false);
        await expect(first.all("SELECT 1 AS one")).rejects.toThrow(/after close/);
        const again = await openTraceStore(location);
        expect((await listEvents(again, "re")).map((e) => e.id)).toEqual(["evt_000001"]);
        await again.close();
      } finally {
        await cleanup();
      }
    });

    it("migrates a trace of schema version 1 to the current one, keeping its rows", async () => {
      const { location, cleanup } = await world.fresh();
      try {
        const raw = await world.raw(location);
        const v1 = TRACE_TABLES.map((t) => [t, columnsAt(t, 1)] as const).filter(([, c]) => c !== null);
        for (const [table, columns] of v1) await raw.exec(createTableSql(table, columns ?? undefined));
        await raw.pragma("user_version = 1");
        // A session row as version 1 had it: none of the later columns.
        const old = sessionRow("01d01d00", new Date(T0).toISOString(), { request: "old run" });
        const names = (columnsAt("sessions", 1) ?? []).map(([column]) => column);
        await raw.run(
          `INSERT INTO sessions (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
          names.map((column) => (old as unknown as Record<string, unknown>)[column]),
        );
        await raw.close();
        const store = await openTraceStore(location);
        try {
          expect(await store.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
          const session = (await getSession(store, "01d01d00")) as SessionRow;
          expect(session.request).toBe("old run");
          expect(session.worktree).toBeNull();
          expect(session.pid).toBeNull();
          // The table migration 4 created takes rows.
          await store.upsert(sessionRecords("01d01d00", T0).filter((r) => r.table === "steps"));
          expect((await readTable(store, "steps")).length).toBe(3);
        } finally {
          await store.close();
        }
      } finally {
        await cleanup();
      }
    });

    it("refuses a foreign database, naming it, and leaves it unchanged", async () => {
      const { location, cleanup } = await world.fresh();
      try {
        const raw = await world.raw(location);
        await raw.exec("CREATE TABLE sessions (id INTEGER PRIMARY KEY, owner TEXT)");
        await raw.close();
        const error = await openTraceStore(location).catch((e: unknown) => e);
        expect((error as Error).name).toBe("ForeignTraceError");
        expect((error as Error).message).toMatch(/is not an sssf trace \(its table sessions/);
        const after = await world.raw(location);
        const columns = ((await after.pragma("table_info(sessions)")) as { name: string }[]).map(
          (c) => c.name,
        );
        await after.close();
        expect(columns).toEqual(["id", "owner"]);
      } finally {
        await cleanup();
      }
    });

    it("answers the CLI's and the UI's queries: sessions newest first, a session's events in order", async () => {
      await withStore(async (store) => {
        await store.upsert([...sessionRecords("aaaa0001", T0), ...sessionRecords("bbbb0002", T0 + 60_000)]);
        await store.run("UPDATE sessions SET archived = 1 WHERE adw_id = ?", ["aaaa0001"]);
        expect((await listSessions(store)).map((s) => s.adw_id)).toEqual(["bbbb0002"]);
        expect((await listSessions(store, { includeArchived: true })).map((s) => s.adw_id)).toEqual([
          "bbbb0002",
          "aaaa0001",
        ]);
        const events = await listEvents(store, "bbbb0002", { type: "tool_call", limit: 3 });
        expect(events.map((e) => e.id)).toEqual([
          "evt_bbbb0002_1_tool_0",
          "evt_bbbb0002_1_tool_1",
          "evt_bbbb0002_1_tool_2",
        ]);
        const written = sessionRecords("bbbb0002", T0).filter((r) => r.table === "events").length;
        expect((await listEvents(store, "bbbb0002")).length).toBe(written);
      });
    });

    it("follows a session by rowid (sssf tail, the UI's live reads) and builds the sessions JSON", async () => {
      await withStore(async (store) => {
        await loadColumns(store);
        const live = await LiveReader.open(store);
        const records = sessionRecords("cccc0003", T0);
        await store.upsert(records);
        const events = records.filter((r) => r.table === "events").map((r) => (r.row as EventRow).id);
        const tail = await listEventsAfter(store, "cccc0003", 0);
        expect(tail.map((e) => e.id)).toEqual(events);
        const cursors = tail.map((e) => e._rowid);
        for (const [i, v] of cursors.entries()) {
          expect(Number.isSafeInteger(v)).toBe(true);
          if (i > 0) expect(v).toBeGreaterThan(cursors[i - 1] as number);
        }
        const last = cursors.at(-1) as number;
        expect(await listEventsAfter(store, "cccc0003", last)).toEqual([]);
        // A rewritten row comes after the cursor again, and so does it to the live reader.
        const changed = await live.read();
        expect(changed.rows.filter((r) => r.t === "events").map((r) => JSON.parse(r.row).id)).toEqual(events);
        const again = records.find((r) => r.table === "events") as TraceRecord;
        await store.upsert([{ table: "events", row: { ...(again.row as EventRow), name: "renamed" } }]);
        expect((await listEventsAfter(store, "cccc0003", last)).map((e) => e.name)).toEqual(["renamed"]);
        const next = await live.read();
        expect(next.rows.map((r) => [r.t, JSON.parse(r.row).name])).toEqual([["events", "renamed"]]);
        expect(next.rows[0]?.v).toBeGreaterThan(last);
        expect(await maxPhaseNumber(store, "cccc0003")).toBe(3);
        expect(await maxPhaseNumber(store, "nobody00")).toBe(0);
        expect(await latestAcceptedEnvelope(store, "cccc0003")).toEqual({
          status: "success",
          summary: "done",
        });
        expect(await latestAcceptedEnvelope(store, "nobody00")).toBeNull();
        const json = JSON.parse(await listSessionsJson(store, { includeArchived: true }));
        expect(json).toEqual(await listSessions(store, { includeArchived: true }));
      });
    });
  });
}
