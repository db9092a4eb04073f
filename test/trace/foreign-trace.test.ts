import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { openTraceDb } from "../../src/trace/database.js";
import { TRACE_TABLES } from "../../src/trace/events.js";
import { getSession, listEnvelopes } from "../../src/trace/queries.js";
import { ForeignTraceError } from "../../src/trace/schema.js";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { FOREIGN_SHAPES, type TraceShapeKind, writeTraceShape } from "./foreign-trace-fixtures.js";
import { useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("foreign-trace");

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

function tablesOf(file: string): string[] {
  const db = openRawSqlite(file, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

describe("a trace location that holds something else", () => {
  for (const kind of FOREIGN_SHAPES) {
    for (const readonly of [false, true]) {
      it(`${kind}, opened ${readonly ? "read-only" : "to write"}: one line naming the file, exit 2, bytes and folder unchanged`, () => {
        const dir = tempDir();
        const file = path.join(dir, "sssf.db");
        writeTraceShape(file, kind);
        const before = readFileSync(file);
        const listing = readdirSync(dir).sort();
        const thrown = thrownBy(() => openTraceDb(file, { readonly }).close());
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

  it("names what is foreign: the Python SSSF's columns, another program's table", () => {
    const python = path.join(tempDir(), "python.db");
    writeTraceShape(python, "python_sssf");
    expect(String(thrownBy(() => openTraceDb(python)))).toMatch(
      /its table sessions lacks columns request, accepted, reason and \d+ more and has column prompt\)/,
    );
    const other = path.join(tempDir(), "app.db");
    writeTraceShape(other, "other_program");
    expect(String(thrownBy(() => openTraceDb(other)))).toMatch(/it holds table users\)/);
  });
});

describe("older and half-made sssf traces", () => {
  const older: TraceShapeKind[] = ["sssf_v1", "sssf_v2", "sssf_v3"];
  for (const kind of older) {
    for (const readonly of [false, true]) {
      it(`${kind} is migrated when opened ${readonly ? "read-only" : "to write"}, its rows kept`, () => {
        const file = path.join(tempDir(), "sssf.db");
        writeTraceShape(file, kind);
        const db = openTraceDb(file, { readonly });
        try {
          expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
          const session = getSession(db, "0ld5e551");
          expect(session).toMatchObject({
            request: "an old request",
            status: "success",
            worktree: null,
            pid: null,
          });
          // Migration 3's rule: valid, a success, no failed gate.
          expect(listEnvelopes(db, "0ld5e551").map((e) => e.accepted)).toEqual([1]);
        } finally {
          db.close();
        }
        expect(tablesOf(file)).toEqual([...TRACE_TABLES].sort());
      });
    }
  }

  const halfMade: TraceShapeKind[] = ["zero_bytes", "no_tables", "some_tables"];
  for (const kind of halfMade) {
    for (const readonly of [false, true]) {
      it(`${kind} gets what is missing when opened ${readonly ? "read-only" : "to write"}`, () => {
        const file = path.join(tempDir(), "sssf.db");
        writeTraceShape(file, kind);
        openTraceDb(file, { readonly }).close();
        expect(tablesOf(file)).toEqual([...TRACE_TABLES].sort());
        const db = openRawSqlite(file, { readonly: true });
        expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
        db.close();
      });
    }
  }

  it("a current trace that lost a table gets it back, the other tables' rows kept", () => {
    const file = path.join(tempDir(), "sssf.db");
    writeTraceShape(file, "sssf_v3");
    openTraceDb(file).close();
    const db = openRawSqlite(file);
    db.exec("DROP TABLE gate_results; DROP TABLE steps;");
    db.close();
    const reopened = openTraceDb(file, { readonly: true });
    expect(getSession(reopened, "0ld5e551")?.request).toBe("an old request");
    reopened.close();
    expect(tablesOf(file)).toEqual([...TRACE_TABLES].sort());
  });

  it("a v2 trace that lost its envelopes table is given it as v2 had it, then migrated", () => {
    const file = path.join(tempDir(), "sssf.db");
    writeTraceShape(file, "sssf_v2");
    const raw = openRawSqlite(file);
    raw.exec("DROP TABLE envelopes");
    raw.close();
    openTraceDb(file).close();
    const db = openRawSqlite(file, { readonly: true });
    const columns = (db.pragma("table_info(envelopes)") as { name: string }[]).map((c) => c.name);
    db.close();
    expect(columns.at(-1)).toBe("accepted");
  });
});
