/**
 * The statements that upsert a list of trace records, shared by both stores: each run of consecutive
 * records of one table in multi-row `INSERT OR REPLACE` statements (one statement step per hundred
 * rows instead of one per row), so it stores exactly what one-row upserts of the same records in the
 * same order would. Values bind by position in the column order of events.ts; a field a row lacks
 * (records from older files) is written as null.
 */

import { SssfError } from "../errors/index.js";
import { columnNames } from "./columns.js";
import { TRACE_TABLES, type TraceRecord, type TraceTable } from "./events.js";

/** Rows per statement; a run's remainder goes in statements of 64, 32, …, 1 rows. */
export const ROWS_PER_STATEMENT = 100;

const KNOWN_TABLES: ReadonlySet<string> = new Set(TRACE_TABLES);
const COLUMNS = new Map<TraceTable, readonly string[]>();
const SQL = new Map<string, string>();

function columnsOf(table: TraceTable): readonly string[] {
  let columns = COLUMNS.get(table);
  if (columns === undefined) {
    if (!KNOWN_TABLES.has(table))
      throw new SssfError("usage", `Unknown trace table "${String(table)}" in a trace record.`);
    columns = columnNames(table);
    COLUMNS.set(table, columns);
  }
  return columns;
}

/** `INSERT OR REPLACE INTO <table> (<columns>) VALUES (?, …), …` with `rows` rows of placeholders. */
export function upsertSql(table: TraceTable, rows = 1): string {
  const columns = columnNames(table);
  const row = `(${columns.map(() => "?").join(", ")})`;
  return `INSERT OR REPLACE INTO ${table} (${columns.join(", ")}) VALUES ${Array(rows).fill(row).join(", ")}`;
}

function sqlFor(table: TraceTable, rows: number): string {
  const key = `${table}:${rows}`;
  let sql = SQL.get(key);
  if (sql === undefined) {
    sql = upsertSql(table, rows);
    SQL.set(key, sql);
  }
  return sql;
}

/** The largest statement for `left` rows: the full size, else the highest power of two. */
function chunkSize(left: number, full: number): number {
  if (left >= full) return full;
  let size = 1;
  while (size * 2 <= left) size *= 2;
  return size;
}

/** One statement of an upsert and its values. */
export interface UpsertStatement {
  sql: string;
  values: unknown[];
}

/**
 * The statements upserting `records` in order. Throws SssfError("usage") naming an unknown table.
 */
export function upsertPlan(
  records: readonly TraceRecord[],
  rowsPerStatement = ROWS_PER_STATEMENT,
): UpsertStatement[] {
  const full = Math.max(1, Math.floor(rowsPerStatement));
  const plan: UpsertStatement[] = [];
  let start = 0;
  while (start < records.length) {
    const table = (records[start] as TraceRecord).table;
    let end = start + 1;
    while (end < records.length && (records[end] as TraceRecord).table === table) end++;
    const columns = columnsOf(table);
    const width = columns.length;
    for (let at = start; at < end; ) {
      const rows = chunkSize(end - at, full);
      const values = new Array<unknown>(rows * width);
      let slot = 0;
      for (let r = 0; r < rows; r++) {
        const row = (records[at + r] as TraceRecord).row as unknown as Record<string, unknown>;
        for (let c = 0; c < width; c++) values[slot++] = row[columns[c] as string] ?? null;
      }
      plan.push({ sql: sqlFor(table, rows), values });
      at += rows;
    }
    start = end;
  }
  return plan;
}
