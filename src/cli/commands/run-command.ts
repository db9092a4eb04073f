import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { runWorkflow } from "../../engine/run-workflow.js";
import { UsageError } from "../../errors/usage-error.js";
import { closeOwnRunNow } from "../../session/reaper.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { interruptOnSignals, signalExitCode } from "../interrupt-signals.js";
import { createTerminalReporter } from "../report/terminal-reporter.js";
import { reportError } from "../report-error.js";
import { buildRunSummary, printRunSummary } from "../run-summary.js";

export interface RunCommandOptions {
  agent?: string;
  adwId?: string;
  config?: string;
  cwd?: string;
  /** `--in-place`: work in the checkout instead of a worktree of its own. */
  inPlace?: boolean;
  /** `--base REF`: where the run's branch starts (default HEAD). */
  base?: string;
  /** `--merge`: fast-forward the base branch once the run is accepted. */
  merge?: boolean;
  carryDirty?: boolean;
  /** `--yes`: approve every question of an engineer phase instead of waiting for `sssf approve`. */
  yes?: boolean;
  /** `--fake-script FILE`: run against a fake model server playing FILE, offline (docs/fake-model.md). */
  fakeScript?: string;
  /** `--json`: one JSON summary (or error) on stdout at the end; progress on stderr (docs/json-output.md). */
  json?: boolean;
  /** `--engine`: `local` here; `restate` goes to the cluster command (docs/cluster.md). */
  engine?: string;
  /** `--ingress`, `--detach`: only with `--engine restate`. */
  ingress?: string;
  detach?: boolean;
}

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

/** A prompt argument that names an existing file is read from it. */
export function readPromptArgument(value: string, cwd: string): string {
  const candidate = path.resolve(cwd, value);
  if (value.length < 4096 && existsSync(candidate) && statSync(candidate).isFile())
    return readFileSync(candidate, "utf8");
  return value;
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
        if (adwId !== null)
          closeOwnRunNow(config, adwId, `interrupted by ${signal}: the run did not finalize in time`);
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
        inPlace: options.inPlace === true,
        base: options.base,
        merge: options.merge === true,
        carryDirty: options.carryDirty === true,
        yes: options.yes === true,
        reporter,
        signal: interrupt.signal,
        ...(fake ? { sendHooks: fake.sendHooks } : {}),
      });
      const signal = interrupt.received();
      const code = signal !== null && !outcome.accepted ? signalExitCode(signal) : outcome.exitCode;
      const exitCode = fake ? await fake.finish(code) : code;
      if (options.json === true)
        printRunSummary(buildRunSummary(outcome, { exitCode, dbPath: config.dbPath, cwd }));
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
