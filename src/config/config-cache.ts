/**
 * The YAML parser's answer for a config text, kept under the text's SHA-256 in the user's cache folder:
 * a run whose config did not change since the last one reads a small JSON file instead of loading and
 * running the YAML parser. The semantic checks (prompt files, runtimes, patterns) run on every load.
 *
 * The folder is the user's cache folder (src/util/cache-dir.ts), used only when nobody else may write
 * into it, since what it holds becomes the config. Every failure means "not cached". A
 * config that sets a secret-named variable (`env:` of an agent or a suite) is never kept: sssf copies
 * no secret to a file of its own.
 *
 * A built sssf also keeps what its wire schema made of the value, under its build id (a hash of the
 * sources it was built from): the same build reads it back without building the schema. From src/
 * (tests, tsx) there is no build id, and the schema always runs.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cacheDir, trustedDir } from "../util/cache-dir.js";
import { buildId } from "../util/package-root.js";
import { isSecretVariableName } from "../util/secrets/secret-values.js";

/** Bumped when what an entry holds, or how YAML maps to it, changes. */
const FORMAT = "config-yaml-1";

/** Entries kept at most; a write beyond that removes the least recently written half. */
const MAX_ENTRIES = 256;

function entryPath(dir: string, text: string): string {
  const key = createHash("sha256").update(FORMAT).update("\0").update(text).digest("hex");
  return path.join(dir, `${key}.json`);
}

/** Whether the config's text sets a secret-named variable: any `env` mapping, at any depth, naming one. */
function setsSecret(value: unknown, depth = 0): boolean {
  if (depth > 64 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((item) => setsSecret(item, depth + 1));
  return Object.entries(value).some(
    ([key, item]) =>
      (key === "env" &&
        item !== null &&
        typeof item === "object" &&
        Object.keys(item).some((name) => isSecretVariableName(name))) ||
      setsSecret(item, depth + 1),
  );
}

/** Plain JSON data only (what the YAML core schema gives a config): kept values must read back equal. */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1));
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.entries(value).every(([key, item]) => key !== "__proto__" && isPlainJson(item, depth + 1));
}

/** What the cache holds for a config text: the YAML's value, and the wire schema's output when this build made it. */
export interface CachedConfig {
  value: unknown;
  wire?: unknown;
}

/** The entry kept for `text`; undefined when none is (or the cache is off or unreadable). */
export function cachedConfig(text: string): CachedConfig | undefined {
  const dir = cacheDir();
  if (dir === null) return undefined;
  try {
    if (!trustedDir(dir)) return undefined;
    const entry = JSON.parse(readFileSync(entryPath(dir, text), "utf8")) as {
      value?: unknown;
      wire?: { build?: unknown; data?: unknown };
    };
    if (!("value" in entry)) return undefined;
    const build = buildId();
    const wire = build !== null && entry.wire?.build === build ? { wire: entry.wire.data } : {};
    return { value: entry.value, ...wire };
  } catch {
    return undefined;
  }
}

/**
 * Keeps the YAML's `value` of `text` and, when given, the wire schema's output for it (under this
 * build's id). Plain JSON only, so what is read back is what was kept. Never throws: a cache that
 * cannot be written is skipped.
 */
export function keepConfig(text: string, value: unknown, wire?: unknown): void {
  const dir = cacheDir();
  if (dir === null || !isPlainJson(value) || setsSecret(value)) return;
  const build = buildId();
  const entry =
    wire !== undefined && build !== null && isPlainJson(wire)
      ? { value, wire: { build, data: wire } }
      : { value };
  let partial: string | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDir(dir)) return;
    const file = entryPath(dir, text);
    // Written whole, then renamed: a concurrent reader sees the old entry or the new one, never half.
    partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(entry), { mode: 0o600 });
    renameSync(partial, file);
    evictOldEntries(dir);
  } catch {
    // Not kept: the next load parses the YAML again.
    if (partial !== undefined) rmSync(partial, { force: true });
  }
}

/** Keeps the folder small: past MAX_ENTRIES entries, the older half goes. Never throws. */
function evictOldEntries(dir: string): void {
  const names = readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
  if (names.length <= MAX_ENTRIES) return;
  const aged = names.map((name) => {
    try {
      return { name, at: statSync(path.join(dir, name)).mtimeMs };
    } catch {
      return { name, at: 0 };
    }
  });
  aged.sort((a, b) => a.at - b.at);
  for (const { name } of aged.slice(0, aged.length - MAX_ENTRIES / 2))
    rmSync(path.join(dir, name), { force: true });
}
