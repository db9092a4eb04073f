/**
 * Replays one stored run (docs/replay.md): its workflow runs again with the current code, output
 * types, gates and prompts, on the run's request, every send answered from the record and every code
 * step from its journal. The replay is a session of its own in `<data_dir>/replays/` (its trace
 * `replays.db`, its folder with `replay.json` naming the original): the original is only read.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Workflow } from "../api/run-api.js";
import { runGit } from "../code/run-git.js";
import type { SssfConfig } from "../config/config-types.js";
import { runWorkflow } from "../engine/run-workflow.js";
import { isSssfError, SssfError } from "../errors/sssf-error.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import { openTraceStore } from "../trace/open-store.js";
import { listEnvelopes, listGateResults, listPhases } from "../trace/store-queries.js";
import { comparePhases, isChange, type PhaseVerdict } from "./replay-compare.js";
import { replayDurable } from "./replay-durable.js";
import type { RecordedRun } from "./replay-record.js";
import { REPLAY_RUNTIME_ID, replayRuntime } from "./replay-runtime.js";
import { ReplayState, type ReplayStop } from "./replay-state.js";

/** One replayed run, as `sssf replay` reports it (`--json`: docs/json-output.md). */
export interface ReplayReport {
  adw_id: string;
  /** The replay's own session id, in `<data_dir>/replays/` (null when it never started). */
  replay_id: string | null;
  workflow: string;
  /** True when any decision differs from the record, or the replay stopped. */
  changed: boolean;
  stopped: ReplayStop | null;
  recorded: { accepted: boolean | null; reason: string | null };
  replayed: { accepted: boolean; reason: string } | null;
  phases: PhaseVerdict[];
  /** What the record lacks without stopping the replay. */
  notes: string[];
  /** The replay's folder (`replay.json`, its prompts and envelopes), null when it never started. */
  record_dir: string | null;
}

export interface ReplayRunOptions {
  config: SssfConfig;
  record: RecordedRun;
  workflow: Workflow;
  registry: RuntimeRegistry;
  /** `--rerun-code`: suites and baselines run again, in a scratch worktree of the run's commit. */
  rerunCode: boolean;
}

/** Where replays keep their sessions and trace: beside the data dir's, never in them. */
export function replaysDir(config: SssfConfig): string {
  return path.join(config.dataDir, "replays");
}

/** The current config, with every agent answered by the replay runtime and no sandbox to build. */
function replayConfig(config: SssfConfig, root: string, workTree: string): SssfConfig {
  return {
    ...config,
    repoRoot: workTree,
    dataDir: root,
    sessionsDir: path.join(root, "sessions"),
    dbPath: path.join(root, "replays.db"),
    agents: config.agents.map((agent) => ({
      ...agent,
      codingAgent: REPLAY_RUNTIME_ID,
      sandbox: { ...agent.sandbox, mode: "off" },
    })),
  };
}

/** The scratch folder the replay works in: empty, or (`--rerun-code`) a detached worktree of the run's commit. */
async function scratchTree(options: ReplayRunOptions, dir: string): Promise<() => Promise<void>> {
  const { session } = options.record;
  if (!options.rerunCode) {
    mkdirSync(dir, { recursive: true });
    return async () => rmSync(path.dirname(dir), { recursive: true, force: true });
  }
  const checkout = session.checkout ?? session.cwd;
  const commit = session.branch ?? session.base_ref;
  if (commit === null)
    throw new SssfError(
      "usage",
      `--rerun-code: run ${session.adw_id} ran in place and recorded no commit to re-run its suites at`,
    );
  let at = commit;
  try {
    await runGit(checkout, ["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]);
  } catch {
    if (session.base_ref === null)
      throw new SssfError("usage", `--rerun-code: ${commit} is gone from ${checkout}`);
    at = session.base_ref;
  }
  await runGit(checkout, ["worktree", "add", "--detach", "--quiet", dir, at]);
  return async () => {
    await runGit(checkout, ["worktree", "remove", "--force", dir]).catch(() => undefined);
    rmSync(path.dirname(dir), { recursive: true, force: true });
  };
}

/** Replays `options.record`; never throws for what the record lacks (the report says where it stopped). */
export async function replayRun(options: ReplayRunOptions): Promise<ReplayReport> {
  const { record, config } = options;
  const state = new ReplayState(record);
  const root = replaysDir(config);
  const report: ReplayReport = {
    adw_id: record.session.adw_id,
    replay_id: null,
    workflow: record.session.workflow,
    changed: false,
    stopped: null,
    recorded: {
      accepted: record.session.accepted === null ? null : record.session.accepted === 1,
      reason: record.session.reason,
    },
    replayed: null,
    phases: [],
    notes: [...record.notes],
    record_dir: null,
  };
  // Outside the checkout: git must not take the scratch folder for a part of the user's repository.
  const work = path.join(mkdtempSync(path.join(tmpdir(), "sssf-replay-")), "work");
  const dispose = await scratchTree(options, work);
  try {
    const outcome = await runWorkflow({
      workflow: options.workflow,
      request: record.session.request,
      config: replayConfig(config, root, work),
      registry: options.registry,
      runtimes: [replayRuntime(state)],
      inPlace: true,
      yes: true,
      agent: record.start?.agent ?? undefined,
      signal: state.controller.signal,
      durable: (journal) => replayDurable(journal, state, options.rerunCode),
    });
    report.replay_id = outcome.adwId;
    report.record_dir = outcome.sessionDir;
    report.replayed = { accepted: outcome.accepted, reason: outcome.reason };
    const store = await openTraceStore(path.join(root, "replays.db"), { readonly: true });
    try {
      const [phases, envelopes, gates] = await Promise.all([
        listPhases(store, outcome.adwId),
        listEnvelopes(store, outcome.adwId),
        listGateResults(store, outcome.adwId),
      ]);
      report.phases = comparePhases(state, { phases, envelopes, gates });
    } finally {
      await store.close();
    }
  } catch (error) {
    if (!isSssfError(error)) throw error;
    // The current code refused before any phase (a missing suite or agent): the replay stops there.
    state.stopAt({
      position: 0,
      phase: "",
      agent: null,
      send: null,
      why: error.message,
      not_in_record: false,
    });
  } finally {
    await dispose();
  }
  report.stopped = state.stop;
  const runChanged =
    report.replayed !== null && state.stop === null && report.recorded.accepted !== report.replayed.accepted;
  report.changed = state.stop !== null || runChanged || report.phases.some((p) => isChange(p.outcome));
  if (report.record_dir !== null)
    writeFileSync(
      path.join(report.record_dir, "replay.json"),
      `${JSON.stringify({ replay_of: record.session.adw_id, ...report }, null, 2)}\n`,
    );
  return report;
}
