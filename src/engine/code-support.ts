import { existsSync } from "node:fs";
import path from "node:path";
import { runQualitySuite } from "../code/quality.js";
import { diffSnapshots, snapshotWorkingTree, type TreeSnapshot } from "../code/working-tree.js";
import type { SssfConfig, QualitySuiteConfig as SuiteDefinition } from "../config/config-types.js";
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

/** The named suite of the config; a name the config lacks is a config error naming the ones it has. */
export function suiteDefinition(config: SssfConfig, suite: string): SuiteDefinition {
  const definition = config.quality[suite];
  if (!definition) {
    const known = Object.keys(config.quality);
    throw new SssfError(
      "config_invalid",
      `quality.${suite}: no such suite in ${config.file ?? "the config"} (defined: ${known.length ? known.join(", ") : "none"})`,
    );
  }
  return definition;
}

/** Options of {@link runSuiteAt}. */
export interface RunSuiteAtOptions {
  signal?: AbortSignal | undefined;
  /** Stream the whole output there (redacted, at most 64 MiB); `SuiteResult.logPath` names it once written. */
  logPath?: string | undefined;
}

/**
 * Runs the config's quality suite `suite` in `cwd` (any checkout of the repository: the run's root, a
 * worktree at another commit) with its command, env and timeout. Rejects only when the config has no
 * such suite (a `config_invalid` SssfError); a suite that fails, cannot start, times out or is
 * aborted is a result with `passed: false`.
 * @example const result = await runSuiteAt(config, "test", config.repoRoot, { logPath: "/tmp/test.log" });
 */
export function runSuiteAt(
  config: SssfConfig,
  suite: string,
  cwd: string,
  options: RunSuiteAtOptions = {},
): Promise<SuiteResult> {
  return runQualitySuite(suiteDefinition(config, suite), cwd, options);
}

/** Runs a named quality suite of the config in the run's root; a name the config lacks is a config error. */
export function runSuitePhase(
  config: SssfConfig,
  suite: string,
  signal: AbortSignal,
  logPath?: string,
): Promise<SuiteResult> {
  return runSuiteAt(config, suite, config.repoRoot, { signal, logPath });
}

/**
 * A free path for a suite's log in the session: `<session>/code/pNN-<phase>.<suite>.log`, then
 * `….<suite>-2.log` and on for a suite run again in the same phase.
 */
export function suiteLogPath(
  sessionRoot: string,
  phase: { number: number; name: string },
  suite: string,
): string {
  const stem = path.join(
    sessionRoot,
    "code",
    `p${String(phase.number).padStart(2, "0")}-${phase.name}.${suite}`,
  );
  for (let n = 1; ; n++) {
    const file = `${stem}${n === 1 ? "" : `-${n}`}.log`;
    if (!existsSync(file) && !reserved.has(file)) {
      reserved.add(file);
      return file;
    }
  }
}

/** Log paths handed out and not yet written (a log appears on disk only when its suite ends). */
const reserved = new Set<string>();
