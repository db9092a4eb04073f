import { afterEach, beforeEach, expect, it } from "vitest";
import { openTraceStore } from "../../src/trace/open-store.js";
import { ForeignTraceError } from "../../src/trace/schema.js";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";

/** The Python SSSF's sessions and phases tables in PostgreSQL's dialect (see test/trace/foreign-trace-fixtures.ts). */
const PYTHON_SSSF = [
  "CREATE TABLE sessions (adw_id TEXT PRIMARY KEY, workflow TEXT NOT NULL, prompt TEXT, status TEXT NOT NULL, started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION)",
  "CREATE TABLE phases (id SERIAL PRIMARY KEY, adw_id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL)",
  "INSERT INTO sessions VALUES ('a1b2c3d4', 'adw_plan_build', 'add a /health endpoint', 'success', 1735689600.5, NULL)",
];

async function thrownBy(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describePostgres("a PostgreSQL trace whose tables have another shape", () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database?.drop();
  });

  const tables = async () =>
    (
      await database.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      )
    ).map((row) => row.table_name);

  for (const readonly of [false, true]) {
    it(`is refused in one line naming it, opened ${readonly ? "read-only" : "to write"}, nothing created or changed`, async () => {
      for (const statement of PYTHON_SSSF) await database.query(statement);
      const before = await tables();
      const thrown = await thrownBy(async () => (await openTraceStore(database.url, { readonly })).close());
      expect(thrown).toBeInstanceOf(ForeignTraceError);
      const message = (thrown as Error).message;
      expect(message).toContain(database.name);
      expect(message).not.toContain("\n");
      expect(message).toMatch(/its table sessions lacks columns request, accepted, reason and \d+ more/);
      expect(message).toMatch(/point trace\.url or SSSF_DB at another database/);
      expect(await tables()).toEqual(before);
      expect(await database.query("SELECT adw_id, prompt FROM sessions")).toEqual([
        { adw_id: "a1b2c3d4", prompt: "add a /health endpoint" },
      ]);
    });
  }

  it("another program's tables beside sssf's are left alone: the trace is created next to them", async () => {
    await database.query("CREATE TABLE users (id SERIAL PRIMARY KEY, email TEXT)");
    await (await openTraceStore(database.url)).close();
    const db = await openTraceStore(database.url, { readonly: true });
    expect(await db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    await db.close();
    expect(await tables()).toContain("users");
    expect(await tables()).toContain("sessions");
  });

  it("a trace that lost tables gets them back, read-only opens included", async () => {
    await (await openTraceStore(database.url)).close();
    await database.query("DROP TABLE gate_results");
    await database.query("DROP TABLE steps");
    await (await openTraceStore(database.url, { readonly: true })).close();
    expect(await tables()).toEqual(expect.arrayContaining(["gate_results", "steps", "sessions"]));
  });
});
