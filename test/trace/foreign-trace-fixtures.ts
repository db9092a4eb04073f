/**
 * Databases that sit where sssf expects its trace but are not (or not yet) a current sssf trace: the
 * original Python SSSF's, older sssf schemas (their DDL copied from the git history of
 * src/trace/schema.ts and columns.ts), bytes that are not SQLite, an empty file, and the half-made
 * databases a first run killed early leaves. Each is a file written with the SQLite driver directly.
 */

import { writeFileSync } from "node:fs";
import { openRawSqlite } from "../helpers/raw-sqlite.js";

/**
 * The trace of the original Python SSSF, as the seed describes what it recorded (sessions, phases,
 * events with parent ids, every envelope attempt, gate results, agent sessions mirroring
 * agent_map.json): integer row ids, epoch-second REAL times, a `data` JSON column. AUTOINCREMENT
 * leaves SQLite's own `sqlite_sequence` table beside them.
 */
export const PYTHON_SSSF_DDL = [
  "CREATE TABLE sessions (adw_id TEXT PRIMARY KEY, workflow TEXT NOT NULL, prompt TEXT, status TEXT NOT NULL DEFAULT 'running', started_at REAL NOT NULL, ended_at REAL)",
  "CREATE TABLE phases (id INTEGER PRIMARY KEY AUTOINCREMENT, adw_id TEXT NOT NULL REFERENCES sessions(adw_id), name TEXT NOT NULL, kind TEXT NOT NULL, agent TEXT, status TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL, error TEXT)",
  "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, adw_id TEXT NOT NULL, phase_id INTEGER, parent_id INTEGER, type TEXT NOT NULL, name TEXT NOT NULL, ts REAL NOT NULL, duration_ms REAL, data TEXT)",
  "CREATE TABLE envelopes (id INTEGER PRIMARY KEY AUTOINCREMENT, adw_id TEXT NOT NULL, phase_id INTEGER NOT NULL, agent TEXT NOT NULL, output_type TEXT NOT NULL, attempt INTEGER NOT NULL, valid INTEGER NOT NULL, envelope_json TEXT, raw_text TEXT, errors TEXT, created_at REAL NOT NULL)",
  "CREATE TABLE gate_results (id INTEGER PRIMARY KEY AUTOINCREMENT, adw_id TEXT NOT NULL, phase_id INTEGER NOT NULL, envelope_id INTEGER, gate TEXT NOT NULL, ok INTEGER NOT NULL, checks TEXT, violations TEXT)",
  "CREATE TABLE agent_sessions (adw_id TEXT NOT NULL, agent TEXT NOT NULL, session_id TEXT NOT NULL, model TEXT, coding_agent TEXT, PRIMARY KEY (adw_id, agent))",
  "INSERT INTO sessions (adw_id, workflow, prompt, status, started_at, ended_at) VALUES ('a1b2c3d4', 'adw_plan_build', 'add a /health endpoint', 'success', 1735689600.5, 1735689700.25)",
  "INSERT INTO phases (adw_id, name, kind, agent, status, started_at, ended_at) VALUES ('a1b2c3d4', 'plan', 'agent', 'planner', 'success', 1735689600.5, 1735689650.0)",
  "INSERT INTO events (adw_id, phase_id, type, name, ts, data) VALUES ('a1b2c3d4', 1, 'tool_call', 'bash: ls -la src', 1735689601.0, '{}')",
  "INSERT INTO envelopes (adw_id, phase_id, agent, output_type, attempt, valid, envelope_json, created_at) VALUES ('a1b2c3d4', 1, 'planner', 'PlanOutput', 1, 1, '{\"status\":\"success\"}', 1735689650.0)",
  "INSERT INTO agent_sessions VALUES ('a1b2c3d4', 'planner', 'sssf-a1b2c3d4-planner-9f2e', 'google/gemini-3.6-flash', 'pi')",
];

/**
 * sssf's schema version 1 as commit 87ad319 created it (`TRACE_TABLES.map(createTableSql)` and
 * `V1_INDEXES`), user_version 1.
 */
export const SSSF_V1_DDL = [
  "CREATE TABLE sessions (adw_id TEXT NOT NULL, workflow TEXT NOT NULL, request TEXT NOT NULL, status TEXT NOT NULL, accepted INTEGER, reason TEXT, cwd TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, duration_ms INTEGER, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, archived INTEGER NOT NULL, PRIMARY KEY (adw_id))",
  "CREATE TABLE phases (id TEXT NOT NULL, adw_id TEXT NOT NULL, number INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, owner TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, duration_ms INTEGER, error TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, context_tokens INTEGER, PRIMARY KEY (id))",
  "CREATE TABLE events (id TEXT NOT NULL, adw_id TEXT NOT NULL, phase_id TEXT, parent_id TEXT, type TEXT NOT NULL, name TEXT NOT NULL, agent TEXT, ok INTEGER, started_at TEXT NOT NULL, ended_at TEXT, duration_ms INTEGER, payload TEXT NOT NULL, PRIMARY KEY (id))",
  "CREATE TABLE envelopes (id TEXT NOT NULL, adw_id TEXT NOT NULL, phase_id TEXT NOT NULL, agent TEXT NOT NULL, attempt INTEGER NOT NULL, reason TEXT NOT NULL, output_type TEXT NOT NULL, valid INTEGER NOT NULL, status TEXT, envelope_json TEXT, raw_text TEXT NOT NULL, errors TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (id))",
  "CREATE TABLE gate_results (id TEXT NOT NULL, adw_id TEXT NOT NULL, phase_id TEXT NOT NULL, envelope_id TEXT NOT NULL, gate TEXT NOT NULL, ok INTEGER NOT NULL, checks TEXT NOT NULL, violations TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (id))",
  "CREATE TABLE processes (id TEXT NOT NULL, adw_id TEXT NOT NULL, phase_id TEXT, agent TEXT, pid INTEGER NOT NULL, command TEXT NOT NULL, cwd TEXT NOT NULL, status TEXT NOT NULL, exit_code INTEGER, signal TEXT, started_at TEXT NOT NULL, ended_at TEXT, stderr_tail TEXT, PRIMARY KEY (id))",
  "CREATE TABLE agent_sessions (adw_id TEXT NOT NULL, agent TEXT NOT NULL, session_id TEXT NOT NULL, model TEXT NOT NULL, coding_agent TEXT NOT NULL, sends INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (adw_id, agent))",
  "CREATE INDEX idx_events_adw_started ON events (adw_id, started_at)",
  "CREATE INDEX idx_events_phase ON events (phase_id)",
  "CREATE INDEX idx_phases_adw_number ON phases (adw_id, number)",
  "CREATE INDEX idx_envelopes_adw ON envelopes (adw_id)",
  "CREATE INDEX idx_gate_results_adw ON gate_results (adw_id)",
  "CREATE INDEX idx_processes_adw ON processes (adw_id)",
  "CREATE INDEX idx_sessions_started ON sessions (started_at)",
];

/** Migration 2 of commit 6f152df (user_version 2). */
export const SSSF_V2_DDL = [
  ...SSSF_V1_DDL,
  "ALTER TABLE sessions ADD COLUMN worktree TEXT",
  "ALTER TABLE sessions ADD COLUMN branch TEXT",
  "ALTER TABLE sessions ADD COLUMN base_ref TEXT",
  "ALTER TABLE sessions ADD COLUMN checkout TEXT",
];

/** Migration 3 of commit 769f4a6 (user_version 3). */
export const SSSF_V3_DDL = [...SSSF_V2_DDL, "ALTER TABLE envelopes ADD COLUMN accepted INTEGER"];

/** A finished session and one valid envelope as an sssf of schema 1 wrote them. */
export const SSSF_V1_ROWS = [
  "INSERT INTO sessions VALUES ('0ld5e551', 'prompt', 'an old request', 'success', 1, 'done', '/repo', '2025-01-01T00:00:00.000Z', '2025-01-01T00:01:00.000Z', 60000, 10, 5, 0, 0, 0.001, 0)",
  "INSERT INTO phases VALUES ('0ld5e551-p01', '0ld5e551', 1, 'prompt', 'agent', 'assistant', 'Answer', 'success', '2025-01-01T00:00:00.000Z', '2025-01-01T00:01:00.000Z', 60000, NULL, 10, 5, 0, 0, 0.001, 15)",
  "INSERT INTO envelopes VALUES ('env_old', '0ld5e551', '0ld5e551-p01', 'assistant', 1, 'initial', 'GenericOutput', 1, 'success', '{\"status\":\"success\"}', '{\"status\":\"success\"}', '[]', '2025-01-01T00:01:00.000Z')",
];

/** The shapes a trace location may hold, each written to `file` by {@link writeTraceShape}. */
export type TraceShapeKind =
  | "python_sssf"
  | "sssf_v1"
  | "sssf_v2"
  | "sssf_v3"
  | "not_sqlite"
  | "zero_bytes"
  | "no_tables"
  | "some_tables"
  | "other_program";

/** Shapes sssf must refuse, leaving the file's bytes as they are. */
export const FOREIGN_SHAPES: readonly TraceShapeKind[] = ["python_sssf", "not_sqlite", "other_program"];

/** Writes a database of `kind` at `file`. */
export function writeTraceShape(file: string, kind: TraceShapeKind): void {
  if (kind === "not_sqlite") {
    writeFileSync(file, "id,name\n1,not a database: a CSV someone saved under the trace's name\n".repeat(40));
    return;
  }
  if (kind === "zero_bytes") {
    writeFileSync(file, "");
    return;
  }
  const db = openRawSqlite(file);
  try {
    const run = (statements: readonly string[]) => {
      for (const statement of statements) db.exec(statement);
    };
    if (kind === "python_sssf") run(PYTHON_SSSF_DDL);
    else if (kind === "sssf_v1" || kind === "sssf_v2" || kind === "sssf_v3") {
      const version = Number(kind.slice(-1));
      run(version === 1 ? SSSF_V1_DDL : version === 2 ? SSSF_V2_DDL : SSSF_V3_DDL);
      run(SSSF_V1_ROWS.map((insert) => (version >= 2 ? withNulls(insert, version) : insert)));
      db.exec(`PRAGMA user_version = ${version}`);
    } else if (kind === "no_tables") {
      // What a first run killed before its schema transaction committed leaves: WAL mode, no tables.
      db.exec("PRAGMA journal_mode = WAL");
    } else if (kind === "some_tables") {
      // Two of the first migration's tables and nothing else (user_version still 0).
      run(SSSF_V1_DDL.slice(0, 2));
    } else if (kind === "other_program") {
      run([
        "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)",
        "INSERT INTO users VALUES (1, 'a@b.c')",
      ]);
    }
  } finally {
    db.close();
  }
}

/** `insert` of SSSF_V1_ROWS with the null values of the columns later versions appended. */
function withNulls(insert: string, version: number): string {
  const extra = insert.startsWith("INSERT INTO sessions")
    ? ", NULL, NULL, NULL, NULL"
    : insert.startsWith("INSERT INTO envelopes") && version >= 3
      ? ", 1"
      : "";
  return extra === "" ? insert : `${insert.slice(0, -1)}${extra})`;
}
