/**
 * A quality suite at the run's base commit: does it already fail before the run changed anything?
 * Run in a throwaway detached worktree (the checkout's dependency folders linked in, as a run's
 * worktree has them) and cached in `<data_dir>/baselines/<commit>/<suite>.json` by suite, command
 * and commit, so every later run from the same commit answers from the file.
 */

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SuiteBaseline } from "../api/run-api.js";
import { countTests, failingRefs } from "../code/test-report/compare-tests.js";
import type { QualitySuiteConfig, SssfConfig } from "../config/config-types.js";
import { SssfError } from "../errors/sssf-error.js";
import type { SuiteResult } from "../gates/gate.js";
import { redactJsonValue } from "../util/secrets/redact-json.js";
import { withDetachedWorktree } from "../workspace/detached-worktree.js";
import { inspectCheckout, repoOf, resolveCommit } from "../workspace/worktree.js";
import { runSuiteAt, suiteDefinition } from "./code-support.js";

/** What a baseline needs to know about the run. */
export interface SuiteBaselineRequest {
  config: SssfConfig;
  suite: string;
  /** The commit to run at (from `baseCommit`). */
  commit: string;
  /** The operator's checkout: its dependency folders are linked into the baseline's worktree. */
  checkoutRoot: string;
  signal?: AbortSignal | undefined;
}

/** `<data_dir>/baselines/<commit>`: the cache entries and logs of one commit. */
export function baselineDir(dataDir: string, commit: string): string {
  return path.join(dataDir, "baselines", commit);
}

/**
 * The commit a run's baseline runs at: the session's `base_ref` (a worktree run's base), else HEAD of
 * the run's root (in place); null when there is none (outside git, a repository without commits).
 * Never rejects.
 */
export function baseCommit(repoRoot: string, baseRef: string | null): Promise<string | null> {
  return resolveCommit(repoRoot, baseRef ?? "HEAD");
}

/** Failing tests past this many at the base are not kept: the comparison falls back to the exit code. */
const MAX_BASE_FAILURES = 10_000;

/** A cache entry as written: the baseline and the report config it was read with. */
type CacheEntry = Partial<SuiteBaseline> & { report?: unknown };

function readCached(file: string, definition: QualitySuiteConfig, commit: string) {
  if (!existsSync(file)) return null;
  try {
    const entry = JSON.parse(readFileSync(file, "utf8")) as CacheEntry;
    const same =
      entry.suite === definition.name &&
      entry.commit === commit &&
      JSON.stringify(entry.command) === JSON.stringify(definition.command) &&
      JSON.stringify(entry.report ?? null) === JSON.stringify(definition.report ?? null) &&
      typeof entry.passed === "boolean" &&
      // An entry from before per-test reports has no failing-test list: run the suite again for it.
      (definition.report === undefined || "failed_tests" in entry);
    if (!same) return null;
    const { report: _report, ...baseline } = entry;
    return { ...baseline, cached: true } as SuiteBaseline;
  } catch {
    return null; // half-written by a process that died, or edited by hand: run it again
  }
}

/**
 * How `suite` ends at `commit`: from the cache when an entry for the same suite, command and commit
 * exists, else run now (in a detached worktree under `<data_dir>/.baseline-worktrees/`, removed
 * afterwards) and cached, its whole output saved as `<suite>.log` beside the entry. The suite runs in
 * the same sub-folder of the repository as the run's root. Rejects with a `config_invalid` SssfError
 * for an unknown suite, a `not_a_git_repo` one outside git, a GitError when git cannot add the worktree.
 * @example const baseline = await suiteBaseline({ config, suite: "test", commit, checkoutRoot });
 */
export async function suiteBaseline(request: SuiteBaselineRequest): Promise<SuiteBaseline> {
  const { config, suite, commit } = request;
  const definition = suiteDefinition(config, suite);
  const dir = baselineDir(config.dataDir, commit);
  const file = path.join(dir, `${suite}.json`);
  const cached = readCached(file, definition, commit);
  if (cached !== null) return cached;

  const repo = (await repoOf(request.checkoutRoot)) ?? (await repoOf(config.repoRoot));
  if (repo === null) {
    throw new SssfError(
      "not_a_git_repo",
      `cannot run a suite at the base commit: ${config.repoRoot} is not a git work tree`,
    );
  }
  const prefix = (await inspectCheckout(config.repoRoot))?.prefix ?? "";
  const result = await withDetachedWorktree(
    repo,
    commit,
    path.join(config.dataDir, ".baseline-worktrees"),
    (tree) =>
      runSuiteAt(config, suite, path.join(tree.root, prefix), {
        signal: request.signal,
        logPath: path.join(dir, `${suite}.log`),
      }),
  );
  const baseline: SuiteBaseline = {
    suite,
    command: [...definition.command],
    commit,
    passed: result.passed,
    exit_code: result.exitCode,
    duration_ms: result.durationMs,
    output_tail: result.outputTail,
    log_path: result.logPath,
    cached: false,
    ...(definition.report === undefined
      ? {}
      : {
          tests: result.tests === null ? null : countTests(result.tests),
          failed_tests: baseFailures(result.tests),
        }),
  };
  // An aborted or timed-out run says nothing about the commit: it is not cached.
  if (!request.signal?.aborted && !result.outputTail.endsWith("process group killed")) {
    mkdirSync(dir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    const entry: CacheEntry = { ...baseline, ...(definition.report ? { report: definition.report } : {}) };
    writeFileSync(temporary, `${JSON.stringify(redactJsonValue(entry), null, 2)}\n`);
    renameSync(temporary, file);
  }
  return baseline;
}

function baseFailures(tests: SuiteResult["tests"]): SuiteBaseline["failed_tests"] {
  if (tests === null) return null;
  const refs = failingRefs(tests);
  return refs.length > MAX_BASE_FAILURES ? null : refs;
}

/**
 * The cached baseline of `suite` at `commit` when one is on disk (same suite, command and report),
 * else null: never runs the suite. A passing run reads it to tell which base failures it fixed.
 */
export function cachedSuiteBaseline(config: SssfConfig, suite: string, commit: string): SuiteBaseline | null {
  const definition = config.quality[suite];
  if (definition === undefined) return null;
  return readCached(path.join(baselineDir(config.dataDir, commit), `${suite}.json`), definition, commit);
}
