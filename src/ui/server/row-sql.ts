import type { TraceTable } from "../../trace/events.js";
import type { TraceDb } from "../../trace/sqlite.js";
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

const columnCache = new WeakMap<TraceDb, Map<TraceTable, string[]>>();

/**
 * The columns `table` really has in `db` (an older database may lack later columns), in table order.
 * Cached per connection. Throws what SQLite throws (closed database).
 */
export function tableColumns(db: TraceDb, table: TraceTable): string[] {
  let tables = columnCache.get(db);
  if (tables === undefined) {
    tables = new Map();
    columnCache.set(db, tables);
  }
  let columns = tables.get(table);
  if (columns === undefined) {
    const info = db.pragma(`table_info(${table})`) as { name: string }[];
    columns = info.map((column) => column.name);
    tables.set(table, columns);
  }
  return columns;
}

/** Forgets the cached columns of `db` (after a migration added some). Never throws. */
export function forgetColumns(db: TraceDb): void {
  columnCache.delete(db);
}

function valueSql(table: TraceTable, column: string): string {
  return LONG_COLUMNS[table].includes(column) ? `substr(${column}, 1, ${TEXT_LIMIT})` : column;
}

function cutSql(db: TraceDb, table: TraceTable): string {
  const long = LONG_COLUMNS[table].filter((c) => tableColumns(db, table).includes(c));
  if (long.length === 0) return "0";
  // A number, not a truth value: PostgreSQL's comparisons are booleans, SQLite's are 0 or 1.
  return `(CASE WHEN ${long.map((c) => `coalesce(length(${c}), 0) > ${TEXT_LIMIT}`).join(" OR ")} THEN 1 ELSE 0 END)`;
}

/**
 * The select list for API rows of `table`: `rowid AS _v`, every column (long ones shortened) and `_cut`.
 * @example
 * db.prepare(`SELECT ${selectList(db, "phases")} FROM phases WHERE adw_id = ?`)
 */
export function selectList(db: TraceDb, table: TraceTable): string {
  const columns = tableColumns(db, table).map((c) =>
    LONG_COLUMNS[table].includes(c) ? `${valueSql(table, c)} AS ${c}` : c,
  );
  return [`${table}.rowid AS _v`, ...columns, `${cutSql(db, table)} AS _cut`].join(", ");
}

/**
 * A `json_object(…)` expression producing the same API row as {@link selectList}, as JSON text built by
 * SQLite, so live deltas reach clients without a JavaScript object per row.
 */
export function jsonRow(db: TraceDb, table: TraceTable): string {
  const fields = tableColumns(db, table).map((c) => `'${c}', ${valueSql(table, c)}`);
  return `json_object('_v', ${table}.rowid, ${fields.join(", ")}, '_cut', ${cutSql(db, table)})`;
}
