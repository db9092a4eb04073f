import path from "node:path";
import type { SssfConfig } from "./config-types.js";

/** Paths sssf itself writes during a phase; they are never the phase's changes. */
export function engineOwnedPrefixes(config: SssfConfig): string[] {
  const db = path.relative(config.repoRoot, config.dbPath);
  const prefixes = [
    path.relative(config.repoRoot, config.dataDir),
    db,
    `${db}-wal`,
    `${db}-shm`,
    `${db}-journal`,
  ];
  return prefixes.filter((p) => p !== "" && !p.startsWith("..")).map((p) => p.split(path.sep).join("/"));
}
