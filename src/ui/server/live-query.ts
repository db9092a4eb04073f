import { TRACE_TABLES, type TraceTable } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { jsonRow } from "./row-sql.js";

/** One row written since the last read: its table, rowid, session, phase, kind and API row as JSON. */
export interface ChangedRow {
  t: TraceTable;
  v: number;
  adw: string;
  /** The row's phase id (a phase's own id for `phases`), or null. */
  phase: string | null;
  /** `events`: the event type; `envelopes`: `valid` as "0"/"1"; otherwise null. */
  k: string | number | null;
  row: string;
}

/** Highest rowid sent per table. */
export type Cursors = Record<TraceTable, number>;

// Per table: the session and phase columns used to route a row to the clients that watch it. The kind
// is text in every arm: PostgreSQL refuses a UNION of text and bigint.
const ROUTE: { readonly [T in TraceTable]: [phase: string, kind: string] } = {
  sessions: ["NULL", "NULL"],
  phases: ["id", "NULL"],
  events: ["phase_id", "type"],
  envelopes: ["phase_id", "CAST(valid AS TEXT)"],
  gate_results: ["phase_id", "NULL"],
  processes: ["phase_id", "NULL"],
  agent_sessions: ["NULL", "NULL"],
  steps: ["phase_id", "op"],
};

/** Most rows one read returns; a longer backlog is read by the next tick, right away. */
export const MAX_ROWS_PER_READ = 20_000;

/**
 * The live hub's one incremental query: every row of every trace table with a rowid above the
 * table's cursor, as JSON built by the database (SQLite, or PostgreSQL whose `rowid` column one
 * sequence feeds on every write). An upsert (`INSERT OR REPLACE`) gives the rewritten row a
 * new, larger rowid, so rows written since the last read are exactly those above the cursors.
 */
export class LiveReader {
  readonly #db: TraceSql;
  readonly #sql: string;
  readonly #cursors: Cursors;

  private constructor(db: TraceSql, cursors: Cursors) {
    this.#db = db;
    const arms = TRACE_TABLES.map((table) => {
      const [phase, kind] = ROUTE[table];
      return `SELECT '${table}' AS t, rowid AS v, adw_id AS adw, ${phase} AS phase, ${kind} AS k,
        ${jsonRow(db, table)} AS row FROM ${table} WHERE rowid > @${table}`;
    });
    this.#sql = `${arms.join("\nUNION ALL\n")}\nLIMIT ${MAX_ROWS_PER_READ}`;
    this.#cursors = cursors;
  }

  /**
   * A reader starting at the current end of every table: only rows written from now on are read.
   * The columns must be loaded (`loadColumns`). Rejects with what the database throws.
   */
  static async open(db: TraceSql): Promise<LiveReader> {
    return new LiveReader(db, await ends(db));
  }

  /** Moves every cursor to the current end of its table without reading rows (nobody is watching). */
  async skip(): Promise<void> {
    Object.assign(this.#cursors, await ends(this.#db));
  }

  /** A copy of the cursors. */
  get cursors(): Cursors {
    return { ...this.#cursors };
  }

  /**
   * The rows written since the previous read, and whether the read was cut at
   * {@link MAX_ROWS_PER_READ} (read again then). Advances the cursors. Rejects with what the database throws.
   */
  async read(): Promise<{ rows: ChangedRow[]; full: boolean }> {
    const rows = await this.#db.all<ChangedRow>(this.#sql, this.#cursors);
    for (const row of rows) {
      // PostgreSQL hands BIGINT rowids back as text, and json values parsed.
      row.v = Number(row.v);
      if (typeof row.row !== "string") row.row = JSON.stringify(row.row);
      if (row.v > this.#cursors[row.t]) this.#cursors[row.t] = row.v;
    }
    return { rows, full: rows.length >= MAX_ROWS_PER_READ };
  }
}

/** The highest rowid of every trace table (0 when empty). */
async function ends(db: TraceSql): Promise<Cursors> {
  const sql = TRACE_TABLES.map((t) => `(SELECT coalesce(max(rowid), 0) FROM ${t}) AS ${t}`).join(", ");
  const row: Partial<Record<TraceTable, number | string>> =
    (await db.get<Record<TraceTable, number | string>>(`SELECT ${sql}`)) ?? {};
  return Object.fromEntries(TRACE_TABLES.map((t) => [t, Number(row[t] ?? 0)])) as Cursors;
}
