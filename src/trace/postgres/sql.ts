/**
 * The trace's SQL is written for SQLite; this turns it into PostgreSQL's. The queries are sssf's own
 * (a closed set), so the translation covers exactly the dialect they use: parameters (`?`, `@name`),
 * `INSERT OR REPLACE` (an upsert that gives the row a new rowid), `LIKE` (case-insensitive in SQLite),
 * `LIMIT -1`, the JSON builders, and the column types of the DDL. Every table has a `rowid` column fed by
 * one sequence, so the live queries' cursors work unchanged.
 */

import { PRIMARY_KEYS, TRACE_TABLES, type TraceTable } from "../events.js";

/** The sequence every trace table's `rowid` column draws from: one order of writes for all tables. */
export const ROWID_SEQUENCE = "sssf_rowid";

const KNOWN_TABLES: ReadonlySet<string> = new Set(TRACE_TABLES);

/**
 * A value as a PostgreSQL literal. Strings are standard-conforming quoted literals; NUL, which
 * PostgreSQL's text cannot hold, becomes U+FFFD (the session file keeps the original).
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (Number.isFinite(value)) return String(value);
    return Number.isNaN(value) ? "'NaN'" : value > 0 ? "'Infinity'" : "'-Infinity'";
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "1" : "0";
  if (value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString("hex")}'::bytea`;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `'${text.replace(/\0/g, "\uFFFD").replace(/'/g, "''")}'`;
}

/** A parsed statement: SQL pieces between parameter slots, and each slot's name or position. */
export interface SqlTemplate {
  readonly pieces: readonly string[];
  /** Per slot: a name (`@name`) or null (`?`, taken in order). */
  readonly slots: readonly (string | null)[];
  /** Set for `INSERT OR REPLACE INTO <trace table> (…) VALUES …`: built row by row instead. */
  readonly upsert?: { table: TraceTable; columns: readonly string[] };
}

/**
 * The index of the quote that closes the literal or quoted name opening at `start` (a doubled quote
 * inside is part of it), or the text's last index when it is never closed.
 */
function closingQuote(sql: string, start: number): number {
  const quote = sql[start];
  let j = start + 1;
  while (j < sql.length && !(sql[j] === quote && sql[j + 1] !== quote)) j += sql[j] === quote ? 2 : 1;
  return j;
}

/** Rewrites outside string literals and quoted names: `replace` sees only SQL text. */
function mapCode(sql: string, replace: (code: string) => string): string {
  let out = "";
  let code = "";
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i] as string;
    if (c === "'" || c === '"') {
      out += replace(code);
      code = "";
      const end = closingQuote(sql, i);
      out += sql.slice(i, end + 1);
      i = end;
    } else code += c;
  }
  return out + replace(code);
}

/** Column types and the rowid column for `CREATE TABLE` and `ALTER TABLE … ADD COLUMN`. */
function translateDdl(code: string): string {
  let out = code
    .replace(/\bINTEGER\b/g, "BIGINT")
    .replace(/\bREAL\b/g, "DOUBLE PRECISION")
    .replace(/\bALTER TABLE (\w+) ADD COLUMN\b/g, "ALTER TABLE $1 ADD COLUMN IF NOT EXISTS");
  out = out.replace(
    /\bCREATE TABLE( IF NOT EXISTS)? (\w+) \(/g,
    (_m, ifNot: string | undefined, table: string) =>
      `CREATE TABLE${ifNot ?? ""} ${table} (\n  rowid BIGINT NOT NULL DEFAULT nextval('${ROWID_SEQUENCE}'),`,
  );
  return out;
}

/** Indexes on the rowid column of the tables `sql` creates (the live queries read by rowid). */
function rowidIndexes(sql: string): string {
  const tables = [...sql.matchAll(/\bCREATE TABLE(?: IF NOT EXISTS)? (\w+) \(/g)].map((m) => m[1] as string);
  return tables.map((t) => `;\nCREATE INDEX IF NOT EXISTS idx_${t}_rowid ON ${t} (rowid)`).join("");
}

/** SQLite's functions and operators as PostgreSQL spells them. */
function translateCode(code: string): string {
  return code
    .replace(/\bLIKE\b/g, "ILIKE")
    .replace(/\bjson_group_array\(json\((\w+)\)\)/g, "coalesce(json_agg($1), '[]'::json)")
    .replace(/\bjson_object\(/g, "json_build_object(")
    .replace(/\bBEGIN (IMMEDIATE|EXCLUSIVE|DEFERRED)\b/g, "BEGIN");
}

const UPSERT = /^\s*INSERT OR REPLACE INTO (\w+) \(([^)]*)\) VALUES /i;

/** Parses `sql` (SQLite's dialect) into a PostgreSQL template. Pure; cache the result per SQL text. */
export function parseSql(sql: string): SqlTemplate {
  const upsert = UPSERT.exec(sql);
  if (upsert && KNOWN_TABLES.has(upsert[1] as string)) {
    const table = upsert[1] as TraceTable;
    const columns = (upsert[2] as string).split(",").map((c) => c.trim());
    return { pieces: [], slots: [], upsert: { table, columns } };
  }
  const ddl = /^\s*(CREATE TABLE|ALTER TABLE)/i.test(sql);
  const translated = mapCode(sql, ddl ? translateDdl : translateCode) + (ddl ? rowidIndexes(sql) : "");
  const pieces: string[] = [];
  const slots: (string | null)[] = [];
  let piece = "";
  // Parameters are outside literals: walk the translated text, skipping quoted parts.
  for (let i = 0; i < translated.length; i++) {
    const c = translated[i] as string;
    if (c === "'" || c === '"') {
      const end = closingQuote(translated, i);
      piece += translated.slice(i, end + 1);
      i = end;
    } else if (c === "?") {
      pieces.push(piece);
      slots.push(null);
      piece = "";
    } else if ((c === "@" || c === ":") && /[A-Za-z_]/.test(translated[i + 1] ?? "")) {
      // `::json` is a cast, not a parameter.
      if (c === ":" && (translated[i - 1] === ":" || translated[i + 1] === ":")) {
        piece += c;
        continue;
      }
      const name = /^[A-Za-z_]\w*/.exec(translated.slice(i + 1))?.[0] as string;
      pieces.push(piece);
      slots.push(name);
      piece = "";
      i += name.length;
    } else piece += c;
  }
  pieces.push(piece);
  return { pieces, slots };
}

/** `params` as better-sqlite3 takes them: values, one array of values, or one object of named values. */
function normalize(params: readonly unknown[]): { list: readonly unknown[]; named: Record<string, unknown> } {
  const only = params.length === 1 ? params[0] : undefined;
  if (Array.isArray(only)) return { list: only, named: {} };
  if (only !== null && typeof only === "object" && !(only instanceof Uint8Array))
    return { list: [], named: only as Record<string, unknown> };
  return { list: params, named: {} };
}

/**
 * One multi-row upsert: later rows with the same primary key replace earlier ones (as consecutive
 * `INSERT OR REPLACE`s would; PostgreSQL refuses one statement touching a row twice), and every written
 * row gets a new rowid.
 */
function upsertSql(table: TraceTable, columns: readonly string[], values: readonly unknown[]): string {
  const width = columns.length;
  const keyAt = PRIMARY_KEYS[table].map((k) => columns.indexOf(k));
  const rows = new Map<string, string>();
  for (let at = 0; at + width <= values.length; at += width) {
    const row = values.slice(at, at + width).map(sqlLiteral);
    const key = keyAt.map((k) => row[k]).join("\u0001");
    rows.delete(key);
    rows.set(key, `(${row.join(", ")})`);
  }
  const updates = columns
    .filter((c) => !PRIMARY_KEYS[table].includes(c as never))
    .map((c) => `${c} = EXCLUDED.${c}`);
  updates.push(`rowid = nextval('${ROWID_SEQUENCE}')`);
  return (
    `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${[...rows.values()].join(", ")}\n` +
    `ON CONFLICT (${PRIMARY_KEYS[table].join(", ")}) DO UPDATE SET ${updates.join(", ")}`
  );
}

/** The PostgreSQL text of `template` with `params` bound as literals. Throws on a missing named value. */
export function bindSql(template: SqlTemplate, params: readonly unknown[]): string {
  const { list, named } = normalize(params);
  if (template.upsert) return upsertSql(template.upsert.table, template.upsert.columns, list);
  let out = template.pieces[0] as string;
  let next = 0;
  template.slots.forEach((slot, i) => {
    let value: unknown;
    if (slot === null) value = list[next++];
    else if (slot in named) value = named[slot];
    else throw new RangeError(`Missing named parameter '${slot}'`);
    out += sqlLiteral(value) + (template.pieces[i + 1] as string);
  });
  // SQLite's "no limit".
  return out.replace(/\bLIMIT\s+-\d+/gi, "LIMIT ALL");
}
