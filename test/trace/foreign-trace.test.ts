import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { TRACE_TABLES } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { ForeignTraceError } from "../../src/trace/schema.js";
import { getSession, listEnvelopes } from "../../src/trace/store-queries.js";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { openRawSqlite, pragmaRows, pragmaValue } from "../helpers/raw-sqlite.js";
import { FOREIGN_SHAPES, type TraceShapeKind, writeTraceShape } from "./foreign-trace-fixtures.js";
import { useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("foreign-trace");

async function thrownBy(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

function tablesOf(file: string): string[] {
  const db = openRawSqlite(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[];
    return rows.map((row) => row.name);
  } finally {
    db.close();
  }
}

describe("a trace location that holds something else", async () => {
  for (const kind of FOREIGN_SHAPES) {
    for (const readonly of [false, true]) {
      it(`${kind}, opened ${readonly ? "read-only" : "to write"}: one line naming the file, exit 2, bytes and folder unchanged`, async () => {
        const dir = tempDir();
        const file = path.join(dir, "sssf.db");
        writeTraceShape(file, kind);
        const before = readFileSync(file);
        const listing = readdirSync(dir).sort();
        const thrown = await thrownBy(async () => (await openTraceStore(file, { readonly })).close());
        expect(thrown).toBeInstanceOf(ForeignTraceError);
        expect(isSssfError(thrown) && thrown.exitCode).toBe(2);
        const message = (thrown as Error).message;
        expect(message).toContain(file);
        expect(message).not.toContain("\n");
        expect(message).toMatch(/left unchanged: move it aside/);
        expect(message).toMatch(kind === "not_sqlite" ? /is not a SQLite database/ : /is not an sssf trace/);
        expect(readFileSync(file).equals(before)).toBe(true);
        expect(readdirSync(dir).sort()).toEqual(listing);
      });
    }
  }

  it("names what is foreign: the Python SSSF's columns, another program's table", async () => {
    const python = path.join(tempDir(), "python.db");
    writeTraceShape(python, "python_sssf");
    expect(String(await thrownBy(() => openTraceStore(python)))).toMatch(
      /its table sessions lacks columns request, accepted, reason and \d+ more and has column prompt\)/,
    );
    const other = path.join(tempDir(), "app.db");
    writeTraceShape(other, "other_program");
    expect(String(await thrownBy(() => openTraceStore(other)))).toMatch(/it holds table users\)/);
  });
});

describe("older and half-made sssf traces", async () => {
  const older: TraceShapeKind[] = ["sssf_v1", "sssf_v2", "sssf_v3"];
  for (const kind of older) {
    for (const readonly of [false, true]) {
      it(`${kind} is migrated when opened ${readonly ? "read-only" : "to write"}, its rows kept`, async () => {
        const file = path.join(tempDir(), "sssf.db");
        writeTraceShape(file, kind);
        const db = await openTraceStore(file, { readonly });
        try {
          expect(await db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
          const session = await getSession(db, "0ld5e551");
          expect(session).toMatchObject({
            request: "an old request",
            status: "success",
            worktree: null,
            pid: null,
          });
          // Migration 3's rule: valid, a success, no failed gate.
          expect((await listEnvelopes(db, "0ld5e551")).map((e) => e.accepted)).toEqual([1]);
        } finally {
          await db.close();
        }
        expect(tablesOf(file)).toEqual([...TRACE_TABLES].sort());
      });
    }
  }

  const halfMade: TraceShapeKind[] = ["zero_bytes", "no_tables", "some_tables"];
  for (const kind of halfMade) {
    for (const readonly of [false, true]) {
      it(`${kind} gets what is missing when opened ${readonly ? "read-only" : "to write"}`, async () => {
        const file = path.join(tempDir(), "sssf.db");
        writeTraceShape(file, kind);
        await (await openTraceStore(file, { readonly })).close();
        expect(tablesOf(file)).toEqual([...TRACE_TABLES].sort());
        const db = openRawSqlite(file, { readonly: true });
        expect(pragmaValue(db, "user_version")).toBe(SCHEMA_VERSION);
        db.close();
      });
    }
  }

  it("a current trace that lost a table gets it back, the other tables' rows kept", async () => {
    const file = path.join(tempDir(), "sssf.db");
    writeTraceShape(file, "sssf_v3");
    await (await openTraceStore(file)).close();
    const db = openRawSqlite(file);
    db.exec("DROP TABLE gate_results; DROP TABLE steps;");
    db.close();
    const reopened = await openTraceStore(file, { readonly: true });
    expect((await getSession(reopened, "0ld5e551"))?.request).toBe("an old request");
    await reopened.close();
    expect(tablesOf(file)).toEqual([...TRACE_TABLES].sort());
  });

  it("a v2 trace that lost its envelopes table is given it as v2 had it, then migrated", async () => {
    const file = path.join(tempDir(), "sssf.db");
    writeTraceShape(file, "sssf_v2");
    const raw = openRawSqlite(file);
    raw.exec("DROP TABLE envelopes");
    raw.close();
    await (await openTraceStore(file)).close();
    const db = openRawSqlite(file, { readonly: true });
    const columns = pragmaRows<{ name: string }>(db, "table_info(envelopes)").map((c) => c.name);
    db.close();
    expect(columns.at(-1)).toBe("accepted");
  });
});
