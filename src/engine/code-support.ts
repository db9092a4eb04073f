import { runQualitySuite } from "../code/quality.js";
import { diffSnapshots, snapshotWorkingTree, type TreeSnapshot } from "../code/working-tree.js";
import type { SssfConfig } from "../config/config-types.js";
import { engineOwnedPrefixes } from "../config/owned-prefixes.js";
import { SssfError } from "../errors/sssf-error.js";
import type { PathChange, SuiteResult } from "../gates/gate.js";

export interface ChangeTracking {
  changes(): Promise<PathChange[]>;
}

/**
 * Snapshots the working tree now (only when a gate will ask), so `changes()` can later report what
 * the phase created, modified, deleted or renamed.
 */
export function startChangeTracking(config: SssfConfig, needed: boolean): ChangeTracking {
  const exclude = engineOwnedPrefixes(config);
  let before: Promise<TreeSnapshot> | null = needed
    ? snapshotWorkingTree(config.repoRoot, { exclude })
    : null;
  return {
    async changes() {
      before ??= snapshotWorkingTree(config.repoRoot, { exclude });
      const after = await snapshotWorkingTree(config.repoRoot, { exclude });
      return diffSnapshots(await before, after);
    },
  };
}

/** Runs a named quality suite of the config; a name the config lacks is a config error. */
export async function runSuitePhase(
  config: SssfConfig,
  suite: string,
  signal: AbortSignal,
): Promise<SuiteResult> {
  const definition = config.quality[suite];
  if (!definition) {
    const known = Object.keys(config.quality);
    throw new SssfError(
      "config_invalid",
      `quality.${suite}: no such suite in ${config.file ?? "the config"} (defined: ${known.length ? known.join(", ") : "none"})`,
    );
  }
  return runQualitySuite(definition, config.repoRoot, signal);
}
