import path from "node:path";
import { ownOutputFilesUnder } from "../util/own-output-files.js";
import type { SssfConfig } from "./config-types.js";

/**
 * Paths sssf itself writes during a phase, its own stdout and stderr files among them when the
 * operator redirected them into the tree; they are never the phase's changes.
 */
export function engineOwnedPrefixes(config: SssfConfig): string[] {
  const db = path.relative(config.repoRoot, config.dbPath);
  const prefixes = [
    path.relative(config.repoRoot, config.dataDir),
    db,
    `${db}-wal`,
    `${db}-shm`,
    `${db}-journal`,
  ];
  const inside = prefixes
    .filter((p) => p !== "" && !p.startsWith(".."))
    .map((p) => p.split(path.sep).join("/"));
  return [...inside, ...ownOutputFilesUnder(config.repoRoot)];
}
