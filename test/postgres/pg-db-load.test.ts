/**
 * A worker's session files into the fleet's PostgreSQL trace: `sssf db load <sessions> --db postgres://…`
 * adds them (loading again changes nothing, other sessions stay), and `sssf db rebuild` on a PostgreSQL
 * trace adds this host's sessions folder, never replacing the shared database.
 */

import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";

describePostgres("sssf db load and rebuild into a PostgreSQL trace", () => {
  let pg: TestDatabase | undefined;
  let sb: Sandbox | undefined;
  afterEach(async () => {
    sb?.cleanup();
    await pg?.drop();
  });

  const counts = async (db: TestDatabase) =>
    Object.fromEntries(
      await Promise.all(
        ["sessions", "phases", "events", "envelopes"].map(async (table) => {
          const [row] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
          return [table, Number(row?.n)];
        }),
      ),
    );

  it("adds a run's files, once however often it is loaded, beside a session already there", async () => {
    pg = await createTestDatabase();
    sb = new Sandbox().setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [{ tool: "bash", args: { command: "ls" }, result: "a.md" }],
            reply: envelopeJson({}),
          },
          { reply: envelopeJson({ summary: "in postgres already" }) },
        ],
      },
    ]);
    // One run traced locally (SQLite, as on a worker whose files are to be loaded), one straight into PostgreSQL.
    const local = await sb.run(["run", "prompt", "traced locally"]);
    expect(local.code, local.stderr).toBe(0);
    const localId = adwIdFrom(local.stdout);
    const shared = await sb.run(["run", "prompt", "traced in postgres"], { SSSF_DB: pg.url });
    expect(shared.code, shared.stderr).toBe(0);
    const sharedId = adwIdFrom(shared.stdout);
    const before = await counts(pg);

    const sessions = path.join(sb.dir, "adws/adw_data/sessions");
    const first = await sb.run(["db", "load", sessions, "--db", pg.url]);
    expect(first.code, first.stderr).toBe(0);
    // One line, ending in a newline (not a shown ␊), naming where it loaded into.
    expect(first.stdout).toMatch(
      /^loaded 2 session\(s\), \d+ record\(s\) from .*sessions into postgres:\/\/[^\n␊]*\n$/,
    );
    const loaded = await counts(pg);
    expect(loaded.sessions).toBe(2);
    expect(loaded.events).toBeGreaterThan(before.events ?? 0);

    const again = await sb.run(["db", "load", sessions, "--db", pg.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(await counts(pg)).toEqual(loaded);

    // The local run reads back from PostgreSQL as it reads from SQLite.
    const fromPg = await sb.run(["phases", localId, "--json", "--db", pg.url]);
    const fromSqlite = await sb.run(["phases", localId, "--json"]);
    expect(JSON.parse(fromPg.stdout)).toEqual(JSON.parse(fromSqlite.stdout));

    // rebuild on a PostgreSQL trace adds; the session only PostgreSQL had stays.
    const rebuilt = await sb.run(["db", "rebuild"], { SSSF_DB: pg.url });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/a shared PostgreSQL trace is added to, never replaced\)\n$/);
    expect(await counts(pg)).toEqual(loaded);
    const ids = await pg.query<{ adw_id: string }>("SELECT adw_id FROM sessions ORDER BY adw_id");
    expect(ids.map((r) => r.adw_id).sort()).toEqual([localId, sharedId].sort());
  });
});
