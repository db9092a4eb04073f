/**
 * Where a trace lives: a SQLite file path, or a `postgres://` URL (one database for a fleet). Paths
 * resolve against a base directory; URLs are kept as they are and shown without their password.
 */

import path from "node:path";

/** True for a `postgres://` or `postgresql://` URL: the trace is a PostgreSQL database. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** `location` resolved against `base` when it is a path; a URL unchanged. */
export function traceLocation(base: string, location: string): string {
  return isPostgresUrl(location) ? location : path.resolve(base, location);
}

/** `location` fit to show: a URL without its password, a path as it is. Never throws. */
export function displayTraceLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    const parsed = new URL(location);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return location.replace(/:[^:@/]*@/, ":***@");
  }
}

/** Whether a trace may be there: a path that exists, or any URL (opening it says if it is not). */
export function traceMayExist(location: string, exists: (file: string) => boolean): boolean {
  return isPostgresUrl(location) || exists(location);
}
