import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { readResumePlan } from "../../engine/durable/resume-plan.js";
import { runWorkflow } from "../../engine/run-workflow.js";
import { UsageError } from "../../errors/usage-error.js";
import { checkAdwId } from "../../session/adw-id.js";
import { closeOwnRunNow } from "../../session/reaper.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { interruptOnSignals, signalExitCode } from "../interrupt-signals.js";
import { createTerminalReporter } from "../report/terminal-reporter.js";
import { reportError } from "../report-error.js";
import { buildRunSummary, printRunSummary } from "../run-summary.js";

export interface ResumeCommandOptions {
  config?: string;
  cwd?: string;
  yes?: boolean;
  /** `--json`: one JSON summary (or error) on stdout at the end; progress on stderr (docs/json-output.md). */
  json?: boolean;
  /** `--fake-script`: resume offline against the fake model playing this script (src/cli/fake-run.ts). */
  fakeScript?: string;
}

/**
 * A run begun offline resumes offline only: without `--fake-script` its agents would go to their real
 * providers (and their real HOME). Throws UsageError (exit 2) naming the flag and the script the run
 * was journaled with; an online run may resume with or without it.
 */
function checkOfflineResume(adwId: string, journaled: string | null, given: string | undefined): void {
  if (journaled === null || given !== undefined) return;
  throw new UsageError(
    `sssf resume ${adwId}: the run was started offline with --fake-script ${journaled}; pass --fake-script ${journaled} (or another script) to resume it offline: a resume never falls back to a real provider`,
    "--fake-script",
  );
}

/**
 * `sssf resume <adw_id>`: the session's workflow runs again on its request, with the flags its first
 * attempt journaled; completed phases answer from the journal (docs/resume.md).
 */
export async function resumeCommand(adwId: string, options: ResumeCommandOptions): Promise<number> {
  const verbose = process.argv.includes("--verbose");
  let interrupted: () => NodeJS.Signals | null = () => null;
  // `--json`: stdout carries only the summary; progress lines go to stderr.
  const progress = options.json === true ? process.stderr : process.stdout;
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const id = checkAdwId(adwId);
    const loaded = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    const plan = await readResumePlan(loaded, id);
    checkOfflineResume(id, plan.fakeScript, options.fakeScript);
    const workflow = await findWorkflow(plan.workflow, { repoRoot: cwd });
    // `--fake-script`: every agent pointed at the run's own fake model, exactly as `sssf run` does.
    const fake = options.fakeScript
      ? await (await import("../fake-run.js")).startCliFakeRun(options.fakeScript, loaded, progress)
      : null;
    const config = fake?.config ?? loaded;
    // Signals as for sssf run: 130/143/129 after finalizing; a run that cannot finalize in time closes itself.
    const interrupt = interruptOnSignals({
      forceFinalize(signal) {
        return closeOwnRunNow(config, id, `interrupted by ${signal}: the run did not finalize in time`);
      },
    });
    interrupted = interrupt.received;
    try {
      const outcome = await runWorkflow({
        workflow,
        registry: runtimes,
        request: plan.request,
        config,
        adwId: id,
        agent: plan.agent ?? undefined,
        bestOf: plan.bestOf ?? undefined,
        merge: plan.merge,
        yes: options.yes === true || plan.yes,
        resume: true,
        reporter: createTerminalReporter(progress, cwd),
        signal: interrupt.signal,
        ...(fake ? { sendHooks: fake.sendHooks, fakeScript: fake.scriptFile } : {}),
      });
      const signal = interrupt.received();
      const code = signal !== null && !outcome.accepted ? signalExitCode(signal) : outcome.exitCode;
      const exitCode = fake ? await fake.finish(code) : code;
      if (options.json === true)
        printRunSummary(await buildRunSummary(outcome, { exitCode, dbPath: config.dbPath, cwd }));
      return exitCode;
    } finally {
      interrupt.dispose();
      await fake?.close();
    }
  } catch (error) {
    const code = reportError(error, verbose, { json: options.json === true });
    const signal = interrupted();
    return signal === null ? code : signalExitCode(signal);
  }
}

/** `sssf resume <adw_id>`. */
export function registerResume(program: Command): void {
  program
    .command("resume")
    .description("continue a run that crashed, was killed or failed, at its first unfinished phase")
    .argument("<adw_id>", "the session to continue (sssf sessions lists them)")
    .option("--yes", "approve every question the workflow asks the engineer instead of waiting")
    .option(
      "--fake-script <file>",
      "resume offline against a fake model server playing this script (required for a run started with --fake-script; egress fails the run)",
    )
    .option(
      "--json",
      "print one JSON summary on stdout at the end (errors too); progress goes to stderr (docs/json-output.md)",
    )
    .addOption(configOption())
    .addOption(cwdOption())
    .addHelpText(
      "after",
      "\nPhases the run completed are answered from its trace (no agent called, no suite run, no commit\nredone) until the first phase that did not complete or whose prompt or inputs changed; from there\nthe workflow runs live. See docs/resume.md.",
    )
    .action(async (adwId: string, options) => {
      process.exitCode = await resumeCommand(adwId, options);
    });
}
