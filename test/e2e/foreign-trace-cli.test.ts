/**
 * Every command that opens the trace, against each shape a trace file may have (foreign, older,
 * half-made): a foreign file is one line naming it (exit 2, no stack trace, its bytes unchanged); an
 * older or half-made sssf trace is migrated and usable.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { openRawSqlite, pragmaValue } from "../helpers/raw-sqlite.js";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { type TraceShapeKind, writeTraceShape } from "../trace/foreign-trace-fixtures.js";

let sb: Sandbox;
const dbFile = () => path.join(sb.dir, "adws/adw_data/sssf.db");

beforeAll(() => {
  sb = new Sandbox();
  const reply = { reply: envelopeJson({ summary: "done" }) };
  sb.setup([{ name: "assistant", turns: [reply, reply, reply, reply] }]);
});
afterAll(() => sb?.cleanup());

/** The commands that open the trace; run and resume find it through the config's default path. */
const COMMANDS: [string, string[]][] = [
  ["run", ["run", "prompt", "hello"]],
  ["resume", ["resume", "0ld5e551"]],
  ["replay", ["replay", "0ld5e551"]],
  ["sessions", ["sessions"]],
  ["phases", ["phases", "0ld5e551"]],
  ["envelopes", ["envelopes", "0ld5e551", "--json"]],
  ["tail", ["tail", "0ld5e551"]],
  ["ps", ["ps"]],
  ["ui", ["ui", "--port", "0"]],
  ["db rebuild", ["db", "rebuild"]],
];

const FOREIGN: TraceShapeKind[] = ["python_sssf", "not_sqlite", "other_program"];

/** A trace of `kind` at the default path, no sessions; its bytes. */
function fresh(kind: TraceShapeKind): Buffer {
  const sessions = path.join(sb.dir, "adws/adw_data/sessions");
  rmSync(sessions, { recursive: true, force: true });
  // One session folder on file, so that db rebuild has something to recover and reaches the trace.
  mkdirSync(path.join(sessions, "0ld5e551"), { recursive: true });
  writeFileSync(
    path.join(sessions, "0ld5e551/agent_map.json"),
    JSON.stringify({
      assistant: { session_id: "sssf-0ld5e551-assistant-0001", model: "", coding_agent: "exec" },
    }),
  );
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbFile()}${suffix}`, { force: true });
  mkdirSync(path.dirname(dbFile()), { recursive: true });
  writeTraceShape(dbFile(), kind);
  return readFileSync(dbFile());
}

describe("a foreign trace file", () => {
  for (const kind of FOREIGN) {
    for (const [name, args] of COMMANDS) {
      // db rebuild moves a file that is not SQLite aside untouched (a damaged trace): see below.
      if (kind === "not_sqlite" && name === "db rebuild") continue;
      it(`${kind} × sssf ${name}: exit 2, one line naming the file, no stack trace, bytes unchanged`, async () => {
        const before = fresh(kind);
        const result = await sb.run(args);
        expect(result.code).toBe(2);
        const err = result.stderr.trim();
        expect(err).toContain(dbFile());
        expect(err).toMatch(/left unchanged: move it aside/);
        expect(err.split("\n")).toHaveLength(1);
        expect(`${result.stdout}${result.stderr}`).not.toMatch(/\bat .+\.js:\d+:\d+|unexpected error/);
        expect(readFileSync(dbFile()).equals(before)).toBe(true);
        for (const suffix of ["-wal", "-shm", "-journal"])
          expect(existsSync(`${dbFile()}${suffix}`)).toBe(false);
      }, 300_000);
    }
  }

  it("not_sqlite × sssf db rebuild: moved aside untouched (what a damaged trace looks like), the trace rebuilt", async () => {
    const before = fresh("not_sqlite");
    const result = await sb.run(["db", "rebuild"]);
    expect(result.code).toBe(0);
    const backup = readdirSync(path.dirname(dbFile())).find((name) => /^sssf\.db\.bak-[^-]+$/.test(name));
    expect(backup).toBeDefined();
    expect(readFileSync(path.join(path.dirname(dbFile()), backup as string)).equals(before)).toBe(true);
    expect(result.stdout).toMatch(
      /adw_id 0ld5e551: no events\.jsonl; rebuilt 0 phase\(s\), 0 envelope\(s\), 1 agent session\(s\)/,
    );
  }, 300_000);
});

describe("an older or half-made sssf trace", () => {
  const OLDER: TraceShapeKind[] = ["sssf_v1", "sssf_v2", "sssf_v3", "zero_bytes", "no_tables", "some_tables"];
  for (const kind of OLDER) {
    it(`${kind}: sssf sessions migrates it and reads it, sssf run then records into it`, async () => {
      fresh(kind);
      const sessions = await sb.run(["sessions", "--json"]);
      expect(sessions.code).toBe(0);
      const rows = JSON.parse(sessions.stdout) as { adw_id: string; request: string }[];
      expect(rows.map((row) => row.adw_id)).toEqual(kind.startsWith("sssf_v") ? ["0ld5e551"] : []);
      const db = openRawSqlite(dbFile(), { readonly: true });
      expect(pragmaValue(db, "user_version")).toBe(SCHEMA_VERSION);
      db.close();
      if (kind === "sssf_v1" || kind === "no_tables") {
        const run = await sb.run(["run", "prompt", "hello"]);
        expect(run.stderr).not.toMatch(/unexpected error|no such table/);
        expect(JSON.parse((await sb.run(["sessions", "--json"])).stdout).length).toBe(
          kind === "sssf_v1" ? 2 : 1,
        );
      }
    }, 300_000);
  }
});
