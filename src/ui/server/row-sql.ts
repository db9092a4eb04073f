import { SssfError } from "../../errors/sssf-error.js";
import { TRACE_TABLES, type TraceTable } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { TEXT_LIMIT } from "./api-types.js";

// Columns whose values can be large (tool args, raw replies, stderr): the API sends their first
// TEXT_LIMIT characters and flags the row with `_cut`.
const LONG_COLUMNS: { readonly [T in TraceTable]: readonly string[] } = {
  sessions: ["request"],
  phases: ["error", "description"],
  events: ["name", "payload"],
  envelopes: ["raw_text", "envelope_json", "errors"],
  gate_results: ["checks", "violations"],
  processes: ["command", "stderr_tail"],
  agent_sessions: [],
  steps: ["result_json"],
};

const columnCache = new WeakMap<TraceSql, Map<TraceTable, string[]>>();

/**
 * Reads which columns every trace table really has in `db` (an older database may lack later ones),
 * once per connection: the select lists below are built from them. Rejects with what the database throws.
 */
export async function loadColumns(db: TraceSql): Promise<void> {
  const tables = new Map<TraceTable, string[]>();
  for (const table of TRACE_TABLES) {
    const info = (await db.pragma(`table_info(${table})`)) as { name: string }[];
    tables.set(
      table,
      info.map((column) => column.name),
    );
  }
  columnCache.set(db, tables);
}

/**
 * The columns `table` has in `db`, in table order, as {@link loadColumns} read them. Throws
 * SssfError("internal") when they were not loaded for this connection.
 */
export function tableColumns(db: TraceSql, table: TraceTable): string[] {
  const columns = columnCache.get(db)?.get(table);
  if (columns === undefined)
    throw new SssfError("internal", `the columns of ${table} were not loaded for this connection`);
  return columns;
}

/** Forgets the cached columns of `db` (after a migration added some). Never throws. */
export function forgetColumns(db: TraceSql): void {
  columnCache.delete(db);
}

function valueSql(table: TraceTable, column: string): string {
  return LONG_COLUMNS[table].includes(column) ? `substr(${column}, 1, ${TEXT_LIMIT})` : column;
}

function cutSql(db: TraceSql, table: TraceTable): string {
  const long = LONG_COLUMNS[table].filter((c) => tableColumns(db, table).includes(c));
  if (long.length === 0) return "0";
  // A number, not a truth value: PostgreSQL's comparisons are booleans, SQLite's are 0 or 1.
  return `(CASE WHEN ${long.map((c) => `coalesce(length(${c}), 0) > ${TEXT_LIMIT}`).join(" OR ")} THEN 1 ELSE 0 END)`;
}

/**
 * The select list for API rows of `table`: `rowid AS _v`, every column (long ones shortened) and `_cut`.
 * @example
 * await db.all(`SELECT ${selectList(db, "phases")} FROM phases WHERE adw_id = ?`, [adwId])
 */
export function selectList(db: TraceSql, table: TraceTable): string {
  const columns = tableColumns(db, table).map((c) =>
    LONG_COLUMNS[table].includes(c) ? `${valueSql(table, c)} AS ${c}` : c,
  );
  return [`${table}.rowid AS _v`, ...columns, `${cutSql(db, table)} AS _cut`].join(", ");
}

/**
 * A `json_object(…)` expression producing the same API row as {@link selectList}, as JSON text built by
 * SQLite, so live deltas reach clients without a JavaScript object per row.
 */
export function jsonRow(db: TraceSql, table: TraceTable): string {
  const fields = tableColumns(db, table).map((c) => `'${c}', ${valueSql(table, c)}`);
  return `json_object('_v', ${table}.rowid, ${fields.join(", ")}, '_cut', ${cutSql(db, table)})`;
}
