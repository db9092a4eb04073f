/** The `sssf` program: every command, the global flags, and how errors become exit codes. */
import { Command, CommanderError } from "commander";
import { UsageError } from "../errors/usage-error.js";
import { packageVersion } from "../util/package-root.js";
import { jsonTerminalSafe } from "../util/terminal-text.js";
import { registerPool } from "./cluster/pool-command.js";
import { registerWorker } from "./cluster/worker-command.js";
import { registerWorkers } from "./cluster/workers-command.js";
import { registerApproval } from "./commands/approval.js";
import { registerClean } from "./commands/clean.js";
import { registerCompletion } from "./commands/completion.js";
import { registerDb } from "./commands/db.js";
import { registerDemo } from "./commands/demo.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerFakeModel } from "./commands/fake-model.js";
import { registerKill } from "./commands/kill.js";
import { registerListWorkflows } from "./commands/list-workflows.js";
import { registerPs } from "./commands/ps.js";
import { registerResume } from "./commands/resume.js";
import { registerRun } from "./commands/run.js";
import { registerTail } from "./commands/tail.js";
import { registerTraceLists } from "./commands/trace-lists.js";
import { registerUi } from "./commands/ui.js";
import { prepareHelp, topHelpAfter } from "./help-text.js";
import { registerInit } from "./init/init-command.js";
import { jsonError, reportError } from "./report-error.js";

/** Global flags every command accepts. */
export interface GlobalOptions {
  verbose?: boolean;
}

const program = new Command("sssf")
  .description("Super Simple Software Factory: AI coding agents as bounded nodes in workflows that code owns")
  .version(packageVersion(), "-v, --version", "output the version number (-V works too)")
  .option("--verbose", "print stack traces and extra detail on errors")
  .showHelpAfterError("(run sssf --help for usage)")
  .addHelpText("after", () => topHelpAfter())
  .exitOverride();

// A closed pipe (`sssf run … | head`) or a closed terminal (EIO after SIGHUP) must not crash a run:
// it keeps going and finalizes its session.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "EIO") throw error;
  });
}

// Every command, in the order `sssf --help` lists them.
for (const register of [
  registerRun,
  registerResume,
  registerPool,
  registerWorker,
  registerWorkers,
  registerApproval,
  registerInit,
  registerListWorkflows,
  registerTraceLists,
  registerTail,
  registerPs,
  registerKill,
  registerDb,
  registerClean,
  registerDoctor,
  registerFakeModel,
  registerDemo,
  registerUi,
  registerCompletion,
])
  register(program);

/**
 * The arguments as commander should see them: `-V` before any command is `-v` (both print the
 * version; commander takes one short flag for it).
 */
function normalizedArgv(argv: readonly string[]): string[] {
  const args = [...argv];
  for (let i = 2; i < args.length && args[i]?.startsWith("-"); i++) if (args[i] === "-V") args[i] = "-v";
  return args;
}

/** Whether help will be printed: only then are the workflows loaded for its list. */
function helpRequested(args: readonly string[]): boolean {
  return args.length === 2 || args.includes("--help") || args.includes("-h") || args[2] === "help";
}

/** `--cwd DIR` (or `--cwd=DIR`) among the arguments, for the help's repo-local workflows. */
function cwdArgument(args: readonly string[]): string {
  for (let i = 2; i < args.length; i++) {
    if (args[i] === "--cwd" && args[i + 1] !== undefined) return args[i + 1] as string;
    if (args[i]?.startsWith("--cwd=")) return (args[i] as string).slice("--cwd=".length);
  }
  return process.cwd();
}

/** Runs the command `rawArgv` names (`process.argv`'s shape); its outcome is `process.exitCode`. */
export async function runCli(rawArgv: readonly string[]): Promise<void> {
  const argv = normalizedArgv(rawArgv);
  try {
    if (helpRequested(argv)) await prepareHelp(cwdArgument(argv));
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version print and exit 0; every other commander error is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      // `--json`: the usage error as JSON on stdout too (commander has written its line on stderr).
      if (error.exitCode !== 0 && argv.includes("--json")) {
        const message = error.message.replace(/^error: /, "");
        const body = jsonError(new UsageError(message));
        process.stdout.write(`${jsonTerminalSafe(JSON.stringify(body))}\n`);
      }
    } else {
      process.exitCode = reportError(error, Boolean(program.opts<GlobalOptions>().verbose));
    }
  }
}
