import type { TraceDb, TraceStatement } from "./sqlite.js";

const caches = new WeakMap<TraceDb, Map<string, TraceStatement>>();

/**
 * The prepared statement for `sql` on `db`, prepared on first use and reused afterwards.
 * Contract: one statement per (connection, SQL text); entries die with the connection object.
 * Throws what `db.prepare` throws (syntax error, missing table, closed database).
 */
export function cachedStatement(db: TraceDb, sql: string): TraceStatement {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}
