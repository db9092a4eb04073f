import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { runWorkflow } from "../../engine/run-workflow.js";
import { UsageError } from "../../errors/usage-error.js";
import { closeOwnRunNow } from "../../session/reaper.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import {
  bestOfFlag,
  configOption,
  cwdOption,
  type RunCommandOptions,
  readPromptArgument,
} from "../cli-options.js";
import { clusterRunCommand } from "../cluster/cluster-run-command.js";
import { runHelpAfter } from "../help-text.js";
import { interruptOnSignals, signalExitCode } from "../interrupt-signals.js";
import { createTerminalReporter } from "../report/terminal-reporter.js";
import { reportError } from "../report-error.js";
import { buildRunSummary, printRunSummary } from "../run-summary.js";

/** A local run refuses the cluster's flags, and an engine it does not know. */
function checkLocalEngine(options: RunCommandOptions): void {
  if (options.engine !== undefined && options.engine !== "local")
    throw new UsageError(`--engine: expected local or restate, got "${options.engine}"`, "--engine");
  for (const [flag, value] of [
    ["--ingress", options.ingress],
    ["--detach", options.detach],
  ] as const)
    if (value !== undefined && value !== false)
      throw new UsageError(`${flag}: only with --engine restate (docs/cluster.md)`, flag);
}

/**
 * `sssf run`: validates everything before starting, then runs with SIGINT/SIGTERM/SIGHUP wired to
 * abort, which kills the agents' process groups and finalizes the session as `fail`; the exit status
 * is then 128 + the signal's number (130, 143, 129). A second signal kills the agents at once and
 * still finalizes; a run that cannot within a few seconds closes its session as `interrupted` itself.
 */
export async function runCommand(
  workflowName: string,
  prompt: string,
  options: RunCommandOptions,
): Promise<number> {
  const verbose = process.argv.includes("--verbose");
  let interrupted: () => NodeJS.Signals | null = () => null;
  // `--json`: stdout carries only the summary; progress lines go to stderr.
  const progress = options.json === true ? process.stderr : process.stdout;
  try {
    checkLocalEngine(options);
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const workflow = await findWorkflow(workflowName, { repoRoot: cwd });
    const loaded = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    // `--fake-script`: the run's own fake model; every agent is pointed at it (src/cli/fake-run.ts).
    const fake = options.fakeScript
      ? await (await import("../fake-run.js")).startCliFakeRun(options.fakeScript, loaded, progress)
      : null;
    const config = fake?.config ?? loaded;
    const terminal = createTerminalReporter(progress, cwd);
    let adwId: string | null = null;
    const reporter = {
      ...terminal,
      sessionStarted(...args: Parameters<typeof terminal.sessionStarted>) {
        adwId = args[0].adw_id;
        terminal.sessionStarted(...args);
      },
    };
    const interrupt = interruptOnSignals({
      forceFinalize(signal) {
        const reason = `interrupted by ${signal}: the run did not finalize in time`;
        return adwId === null ? undefined : closeOwnRunNow(config, adwId, reason);
      },
    });
    interrupted = interrupt.received;
    try {
      const outcome = await runWorkflow({
        workflow,
        registry: runtimes,
        request: readPromptArgument(prompt, cwd),
        config,
        adwId: options.adwId,
        agent: options.agent,
        bestOf: bestOfFlag(options.bestOf),
        inPlace: options.inPlace === true,
        base: options.base,
        merge: options.merge === true,
        carryDirty: options.carryDirty === true,
        yes: options.yes === true,
        reporter,
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

/** `sssf run <workflow> <prompt>`. */
export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run a workflow on a request")
    .argument("<workflow>", "workflow name (sssf run prompt …)")
    .argument("<prompt>", "the request, or a path to a file holding it")
    .option("--agent <name>", "agent to use for workflows that take one (prompt)")
    .option("--adw-id <id>", "join an existing session (agents resume) or name a new one")
    .option(
      "--in-place",
      "work in the checkout itself instead of a worktree on branch sssf/<workflow>/<adw_id>",
    )
    .option("--base <ref>", "commit-ish the run's branch starts from (default HEAD)")
    .option(
      "--carry-dirty",
      "bring the checkout's uncommitted changes (modified, staged, deleted, untracked) into the new worktree, as a commit of sssf's own before the first phase",
    )
    .option(
      "--best-of <n>",
      "run the workflow's main building phase as n attempts side by side, each in its own worktree; code keeps the passing one with the fewest changed lines (docs/reliability.md)",
    )
    .option("--merge", "fast-forward the base branch to the run's branch when the run is accepted")
    .option("--yes", "approve every question the workflow asks the engineer instead of waiting")
    .option(
      "--dry-run",
      "walk the workflow with generated envelopes and print the phases, owners, output types, gates and suites it would run; nothing runs or is written (docs/dry-run.md)",
    )
    .option(
      "--fake-script <file>",
      "run offline against a fake model server playing this script (every agent pointed at it; egress fails the run)",
    )
    .option(
      "--engine <engine>",
      "where the run executes: local (this process, the default) or restate (a worker of the cluster, docs/cluster.md)",
    )
    .option(
      "--ingress <url>",
      "--engine restate: Restate's ingress (default $SSSF_RESTATE_INGRESS, then engine.restate.ingress)",
    )
    .option("--detach", "--engine restate: print the run's adw_id once submitted, instead of following it")
    .option(
      "--json",
      "print one JSON summary on stdout at the end (errors too); progress goes to stderr (docs/json-output.md)",
    )
    .addOption(configOption())
    .addOption(cwdOption())
    .addHelpText("after", () => runHelpAfter())
    .action(async (workflow: string, prompt: string, options) => {
      if ((options as { dryRun?: boolean }).dryRun === true) {
        process.exitCode = await (await import("./dry-run.js")).dryRunCommand(workflow, prompt, options);
        return;
      }
      const engine = (options as { engine?: string }).engine ?? "local";
      if (engine === "restate") {
        if ((options as { bestOf?: string }).bestOf !== undefined) {
          const refused = new UsageError(
            "--best-of: only with --engine local (docs/reliability.md)",
            "--best-of",
          );
          process.exitCode = reportError(refused, false, {
            json: (options as { json?: boolean }).json === true,
          });
          return;
        }
        process.exitCode = await clusterRunCommand(workflow, prompt, options);
        return;
      }
      process.exitCode = await runCommand(workflow, prompt, { ...options, engine });
    });
}
