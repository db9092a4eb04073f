/**
 * The read side on a PostgreSQL trace: real runs of the built CLI write the trace to PostgreSQL
 * (SSSF_DB), `sssf db load` builds a SQLite trace from the same session files, and every CLI reader
 * and the UI's JSON API must answer the same on both. Then hostile text goes through the PostgreSQL
 * trace and comes back unchanged (NUL, which PostgreSQL's text cannot hold, as U+FFFD).
 */

import { existsSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EventRow, SessionRow } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { getSession, listEvents } from "../../src/trace/store-queries.js";
import type { RunView, SessionsPage } from "../../src/ui/server/api-types.js";
import { createUiApp, type UiApp } from "../../src/ui/server/app.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { eventRow, sessionRow } from "../trace/trace-fixtures.js";

/** Parsed JSON of a CLI reader's output on trace `db`, asserting it exits 0. */
async function readerJson(sb: Sandbox, args: string[], db: string): Promise<unknown> {
  const result = await sb.run([...args, "--json", "--db", db]);
  if (result.code !== 0)
    throw new Error(`sssf ${args.join(" ")} --db ${db}: ${result.code}\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Plain text of a CLI reader (its table form), asserting it exits 0. */
async function readerText(sb: Sandbox, args: string[], db: string): Promise<string> {
  const result = await sb.run([...args, "--db", db]);
  if (result.code !== 0)
    throw new Error(`sssf ${args.join(" ")} --db ${db}: ${result.code}\n${result.stderr}`);
  return result.stdout;
}

/**
 * `value` with what legitimately differs between two traces taken out: `_v` (rowid cursors, collected
 * into `versions` to be checked apart), `tick` and `now` (the hub's counter and the clock).
 */
function normalize(value: unknown, versions: number[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, versions));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "_v") {
      versions.push(v as number);
      out[key] = "<rowid>";
    } else if (key === "tick" || key === "now") out[key] = "<volatile>";
    else out[key] = normalize(v, versions);
  }
  return out;
}

async function getJson<T>(ui: UiApp, url: string): Promise<T> {
  const response = await ui.app.request(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

describePostgres("the readers on a PostgreSQL trace", () => {
  let pg: TestDatabase;
  let sb: Sandbox;
  let sqlitePath: string;
  const ids: string[] = [];

  beforeAll(async () => {
    pg = await createTestDatabase();
    sb = new Sandbox();
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [
              {
                tool: "bash",
                args: { command: "ls -la 'it''s' \"$HOME\" \\ ?" },
                result: "total 0",
                duration_ms: 3,
              },
              { tool: "write", args: { path: "a.md" }, write_file: { path: "a.md", content: "a" } },
            ],
            reply: "oops not json",
            usage: { input_tokens: 10, output_tokens: 5, cost: 0.001 },
          },
          { reply: envelopeJson({ summary: "first run: it's $1 and ? and @name", artifacts: ["a.md"] }) },
          { reply: JSON.stringify({ status: "fail", summary: "second run failed" }) },
        ],
      },
    ]);
    const env = { SSSF_DB: pg.url };
    const one = await sb.run(["run", "prompt", "one: it's 50% done"], env);
    expect(one.code, one.stderr).toBe(0);
    ids.push(adwIdFrom(one.stdout));
    const two = await sb.run(["run", "prompt", "two"], env);
    expect(two.code, two.stderr).toBe(1);
    ids.push(adwIdFrom(two.stdout));
    // The runs wrote to PostgreSQL only: no SQLite trace appeared beside the sessions.
    expect(existsSync(path.join(sb.dir, "adws/adw_data/sssf.db"))).toBe(false);
    sqlitePath = path.join(sb.agentsDir, "from-files.db");
    const loaded = await sb.run([
      "db",
      "load",
      path.join(sb.dir, "adws/adw_data/sessions"),
      "--db",
      sqlitePath,
    ]);
    expect(loaded.code, loaded.stderr).toBe(0);
  });

  afterAll(async () => {
    sb?.cleanup();
    await pg?.drop();
  });

  it("the runs are really in PostgreSQL", async () => {
    const rows = await pg.query<{ adw_id: string; status: string }>(
      "SELECT adw_id, status FROM sessions ORDER BY started_at",
    );
    expect(rows).toEqual([
      { adw_id: ids[0], status: "success" },
      { adw_id: ids[1], status: "fail" },
    ]);
    const tools = await pg.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE type = 'tool_call'");
    expect(Number(tools[0]?.n)).toBe(2);
  });

  it("sssf sessions, phases, events and envelopes print the same JSON and tables on both traces", async () => {
    const onPg = await readerJson(sb, ["sessions"], pg.url);
    expect(onPg).toEqual(await readerJson(sb, ["sessions"], sqlitePath));
    expect((onPg as SessionRow[]).map((s) => s.adw_id)).toEqual([ids[1], ids[0]]);
    expect(await readerText(sb, ["sessions"], pg.url)).toBe(await readerText(sb, ["sessions"], sqlitePath));
    for (const id of ids as [string, string]) {
      for (const command of ["phases", "events", "envelopes"]) {
        const pgJson = await readerJson(sb, [command, id], pg.url);
        expect(pgJson, `${command} ${id}`).toEqual(await readerJson(sb, [command, id], sqlitePath));
        expect((pgJson as unknown[]).length, `${command} ${id}`).toBeGreaterThan(0);
        expect(await readerText(sb, [command, id], pg.url)).toBe(
          await readerText(sb, [command, id], sqlitePath),
        );
      }
    }
    const tools = (await readerJson(
      sb,
      ["events", ids[0] as string, "--type", "tool_call"],
      pg.url,
    )) as EventRow[];
    expect(tools.map((e) => e.name)).toEqual([`bash: ls -la 'it''s' "$HOME" \\ ?`, "write: a.md"]);
    const envelopes = (await readerJson(sb, ["envelopes", ids[0] as string], pg.url)) as { valid: number }[];
    expect(envelopes.map((e) => e.valid)).toEqual([0, 1]);
  });

  it("the UI's JSON API answers the same on both traces, with increasing numeric _v cursors", async () => {
    const sessionsDir = path.join(sb.dir, "adws/adw_data/sessions");
    const open = (dbPath: string) =>
      createUiApp({
        dbPath,
        sessionsDir,
        scheme: { colors: {}, palette: ["#111111"] },
        clientDir: path.join(sb.agentsDir, "no-client"),
        hub: { fallbackMs: 50 },
      });
    const onPg = await open(pg.url);
    const onSqlite = await open(sqlitePath);
    try {
      const [first] = ids as [string, string];
      const run = await getJson<RunView>(onPg, `/api/sessions/${first}`);
      const phase = run.phases.find((p) => p.name === "prompt");
      expect(phase).toBeDefined();
      const urls = [
        "/api/sessions",
        "/api/sessions?q=50%25",
        "/api/sessions?status=fail",
        ...ids.map((id) => `/api/sessions/${id}`),
        `/api/sessions/${first}/phases/${phase?.id}`,
        `/api/sessions/${first}/phases/${phase?.id}/tool-calls`,
        `/api/sessions/${first}/search?q=ls`,
        `/api/sessions/${first}/search?q=${encodeURIComponent("'it''s'")}`,
        "/api/usage",
      ];
      for (const url of urls) {
        const pgVersions: number[] = [];
        const pgBody = normalize(await getJson(onPg, url), pgVersions);
        expect(pgBody, url).toEqual(normalize(await getJson(onSqlite, url)));
        for (const v of pgVersions) expect(Number.isSafeInteger(v) && v > 0, `${url}: _v ${v}`).toBe(true);
      }
      const page = await getJson<SessionsPage>(onPg, "/api/sessions");
      expect(page.sessions.map((s) => s.adw_id)).toEqual([ids[1], ids[0]]);
      expect(
        (await getJson<SessionsPage>(onPg, "/api/sessions?q=50%25")).sessions.map((s) => s.adw_id),
      ).toEqual([first]);
      const search = await getJson<{ total: number }>(onPg, `/api/sessions/${first}/search?q=ls`);
      expect(search.total).toBeGreaterThan(0);
      const quoted = await getJson<{ total: number }>(
        onPg,
        `/api/sessions/${first}/search?q=${encodeURIComponent("'it''s'")}`,
      );
      expect(quoted.total).toBeGreaterThan(0);
      // The rowid cursors follow the order of writes: the second run's session row was written after the
      // first run's, and each phase row after its session's first write.
      const [newest, oldest] = page.sessions;
      expect(typeof newest?._v).toBe("number");
      expect(newest?._v).toBeGreaterThan(oldest?._v as number);
      const versions = run.phases.map((p) => (p as { _v?: number })._v);
      for (const v of versions) expect(typeof v).toBe("number");
      expect(new Set(versions).size).toBe(versions.length);
      // The UI's one write, archiving, reaches PostgreSQL (not a SQLite file named like the URL).
      const archive = await onPg.app.request(`http://127.0.0.1:4477/api/sessions/${first}/archive`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "http://127.0.0.1:4477",
          "sec-fetch-site": "same-origin",
        },
        body: '{"archived":true}',
      });
      expect(archive.status).toBe(200);
      const [row] = await pg.query<{ archived: string }>("SELECT archived FROM sessions WHERE adw_id = $1", [
        first,
      ]);
      expect(Number(row?.archived)).toBe(1);
      expect((await getJson<SessionsPage>(onPg, "/api/sessions")).sessions.map((s) => s.adw_id)).toEqual([
        ids[1],
      ]);
    } finally {
      await onPg.close();
      await onSqlite.close();
    }
  });

  it("hostile text goes into the PostgreSQL trace and comes back unchanged (NUL as U+FFFD)", async () => {
    const hostile = await createTestDatabase();
    let db: TraceStore | undefined;
    try {
      const trace = await openTraceStore(hostile.url);
      db = trace;
      const fragment = fc.oneof(
        fc.constantFrom(
          "'",
          "''",
          '"',
          "\\",
          "\\'",
          "$1",
          "$2",
          "$$",
          "?",
          "?1",
          "@name",
          "@adwId",
          ":name",
          "'::json",
          "'); DROP TABLE events; --",
          "E'\\x00'",
          "\n",
          "\r\n",
          "\t",
          "\u0001",
          "\u001b[31m",
          "\u007f",
          "\u2028",
          "😀",
          "👩‍👩‍👧",
          "\0",
          "%",
          "_",
        ),
        fc.string({ unit: "grapheme", maxLength: 8 }),
      );
      const text = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(""));
      let n = 0;
      await fc.assert(
        fc.asyncProperty(text, text, text, async (request, name, payloadText) => {
          n += 1;
          const adwId = `h${String(n).padStart(7, "0")}`;
          const started = new Date(Date.UTC(2026, 4, 1, 0, 0, n)).toISOString();
          const payload = JSON.stringify({ text: payloadText, [name]: request });
          await trace.transaction(async (tx) => {
            await tx.upsert([
              { table: "sessions", row: sessionRow(adwId, started, { request, reason: name }) },
            ]);
            await tx.upsert([
              { table: "events", row: eventRow(adwId, `${adwId}-e1`, started, { name, payload }) },
            ]);
          });
          const pgText = (s: string) => s.replaceAll("\0", "\uFFFD");
          const session = await getSession(trace, adwId);
          expect(session?.request).toBe(pgText(request));
          expect(session?.reason).toBe(pgText(name));
          const events = await listEvents(trace, adwId);
          expect(events.map((e) => [e.id, e.name, e.payload])).toEqual([
            [`${adwId}-e1`, pgText(name), pgText(payload)],
          ]);
          // The payload is still the JSON that went in (a NUL inside a string only changed to U+FFFD).
          expect(JSON.parse(events[0]?.payload as string)).toEqual(JSON.parse(pgText(payload)));
          // The `@type` parameter binds beside the hostile values: the filter still finds exactly this event.
          expect((await listEvents(trace, adwId, { type: "log" })).map((e) => e.id)).toEqual([`${adwId}-e1`]);
          expect(await listEvents(trace, adwId, { type: "error" })).toEqual([]);
        }),
        { seed: 42, numRuns: 100 },
      );
      const rows = await hostile.query<{ n: string }>("SELECT count(*) AS n FROM events");
      expect(Number(rows[0]?.n)).toBe(100);
    } finally {
      await db?.close();
      await hostile.drop();
    }
  });
});
