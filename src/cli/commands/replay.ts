import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { Workflow } from "../../api/run-api.js";
import { isSssfError } from "../../errors/sssf-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { replayLines, replaySummary } from "../../replay/replay-print.js";
import { readRecordedRun } from "../../replay/replay-record.js";
import { type ReplayReport, replayRun } from "../../replay/replay-run.js";
import { parseSince, selectRuns } from "../../replay/replay-select.js";
import { checkAdwId } from "../../session/adw-id.js";
import { openTraceStore } from "../../trace/open-store.js";
import { displayTraceLocation } from "../../trace/trace-location.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import { jsonTerminalSafe, terminalSafe } from "../../util/terminal-text.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";

export interface ReplayCommandOptions {
  config?: string;
  cwd?: string;
  since?: string;
  workflow?: string;
  rerunCode?: boolean;
  json?: boolean;
}

/** A run the replay could not start: the report says why, at no phase. */
function stoppedReport(adwId: string, workflow: string, why: string): ReplayReport {
  return {
    adw_id: adwId,
    replay_id: null,
    workflow,
    changed: true,
    stopped: { position: 0, phase: "", agent: null, send: null, why, not_in_record: false },
    recorded: { accepted: null, reason: null },
    replayed: null,
    phases: [],
    notes: [],
    record_dir: null,
  };
}

/**
 * `sssf replay`: each stored run's workflow again with the current code, every send answered from
 * its record (docs/replay.md). 0 when no decision changed, 1 when one did (or a replay stopped), 2 on
 * usage errors and unknown ids.
 */
export async function replayCommand(ids: string[], options: ReplayCommandOptions): Promise<number> {
  const verbose = process.argv.includes("--verbose");
  const json = options.json === true;
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    if (options.workflow !== undefined && options.since === undefined)
      throw new UsageError("--workflow: selects among --since's runs; add --since <duration>", "--workflow");
    if (ids.length === 0 && options.since === undefined)
      throw new UsageError(
        "sssf replay: name one or more adw_ids, or --since <duration> (e.g. 24h, 7d)",
        "--since",
      );
    if (ids.length > 0 && options.since !== undefined)
      throw new UsageError("sssf replay: name adw_ids or --since, not both", "--since");
    for (const id of ids) checkAdwId(id);
    const sinceMs = options.since === undefined ? null : parseSince(options.since);
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    const started = performance.now();
    const reports: ReplayReport[] = [];
    let unknown = false;
    // A workflow is loaded once (a repository's own goes through tsx): many runs share it.
    const workflows = new Map<string, Promise<Workflow>>();
    const workflowOf = (name: string): Promise<Workflow> => {
      const found = workflows.get(name) ?? findWorkflow(name, { repoRoot: cwd });
      workflows.set(name, found);
      return found;
    };
    const store = await openTraceStore(config.dbPath, { readonly: true });
    try {
      const chosen =
        sinceMs === null ? ids : await selectRuns(store, { sinceMs, workflow: options.workflow ?? null });
      for (const adwId of chosen) {
        const record = await readRecordedRun(store, adwId, config.sessionsDir);
        let report: ReplayReport;
        if (record === undefined) {
          unknown = true;
          report = stoppedReport(
            adwId,
            "",
            `unknown adw_id ${adwId}: no such session in ${displayTraceLocation(config.dbPath)}`,
          );
        } else {
          try {
            const workflow = await workflowOf(record.session.workflow);
            report = await replayRun({
              config,
              record,
              workflow,
              registry: runtimes,
              rerunCode: options.rerunCode === true,
            });
          } catch (error) {
            if (!isSssfError(error)) throw error;
            report = stoppedReport(adwId, record.session.workflow, error.message);
            report.recorded = {
              accepted: record.session.accepted === null ? null : record.session.accepted === 1,
              reason: record.session.reason,
            };
          }
        }
        reports.push(report);
        if (!json)
          process.stdout.write(
            `${terminalSafe(redactSecrets(replayLines(report).join("\n")), { multiline: true })}\n`,
          );
      }
    } finally {
      await store.close();
    }
    const elapsedMs = performance.now() - started;
    const changed = reports.some((r) => r.changed);
    const exitCode = unknown ? 2 : changed ? 1 : 0;
    if (json) {
      const body = JSON.stringify({
        changed,
        exit_code: exitCode,
        elapsed_ms: Math.round(elapsedMs),
        replays: reports,
      });
      process.stdout.write(`${jsonTerminalSafe(redactSecrets(body))}\n`);
    } else process.stdout.write(`${replaySummary(reports, elapsedMs)}\n`);
    return exitCode;
  } catch (error) {
    return reportError(error, verbose, { json });
  }
}

/** `sssf replay`. */
export function registerReplay(program: Command): void {
  program
    .command("replay")
    .description(
      "re-run stored runs against the current workflow, gates and prompts, answering every send from the record",
    )
    .argument("[adw_ids...]", "the runs to replay (sssf sessions lists them)")
    .option(
      "--since <duration>",
      "replay every finished run started within this long (90s, 30m, 24h, 7d, 2w)",
    )
    .option("--workflow <name>", "with --since: only runs of this workflow")
    .option(
      "--rerun-code",
      "run quality suites again (in a scratch worktree of the run's commit) instead of answering them from the record",
    )
    .option("--json", "print one JSON report on stdout (docs/json-output.md)")
    .addOption(configOption())
    .addOption(cwdOption())
    .addHelpText(
      "after",
      "\nNo model and no agent process: each send gets the recorded reply of the same send (phase, agent,\norder). Exit 0 when every decision is the same, 1 when one changed or a replay stopped, 2 on usage\nerrors. Replays are kept in <data_dir>/replays/, apart from the runs. See docs/replay.md.",
    )
    .action(async (ids: string[], options: ReplayCommandOptions) => {
      process.exitCode = await replayCommand(ids, options);
    });
}
