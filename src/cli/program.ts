/** The `sssf` program: every command, the global flags, and how errors become exit codes. */
import { Command, CommanderError } from "commander";
import { UsageError } from "../errors/usage-error.js";
import { packageVersion } from "../util/package-root.js";
import { jsonTerminalSafe } from "../util/terminal-text.js";
import { clusterSpec } from "./cluster/cluster-spec.js";
import type { CommandSpec } from "./command-spec.js";
import { approvalSpec } from "./commands/approval-spec.js";
import { cleanSpec } from "./commands/clean-spec.js";
import { completionSpec } from "./commands/completion-spec.js";
import { dbSpec } from "./commands/db-spec.js";
import { demoSpec } from "./commands/demo-spec.js";
import { doctorSpec } from "./commands/doctor-spec.js";
import { fakeModelSpec } from "./commands/fake-model-spec.js";
import { initSpec } from "./commands/init-spec.js";
import { killSpec } from "./commands/kill-spec.js";
import { listWorkflowsSpec } from "./commands/list-workflows-spec.js";
import { psSpec } from "./commands/ps-spec.js";
import { resumeSpec } from "./commands/resume-spec.js";
import { runSpec } from "./commands/run-spec.js";
import { tailSpec } from "./commands/tail-spec.js";
import { traceListsSpec } from "./commands/trace-lists-spec.js";
import { uiSpec } from "./commands/ui-spec.js";
import { prepareHelp, topHelpAfter } from "./help-text.js";
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

/** Every command, in the order `sssf --help` lists them; each loads its module only when it runs. */
const COMMANDS: readonly CommandSpec[] = [
  runSpec,
  resumeSpec,
  clusterSpec,
  approvalSpec,
  initSpec,
  listWorkflowsSpec,
  traceListsSpec,
  tailSpec,
  psSpec,
  killSpec,
  dbSpec,
  cleanSpec,
  doctorSpec,
  fakeModelSpec,
  demoSpec,
  uiSpec,
  completionSpec,
];

/**
 * The specs a start registers: only the one owning the command `argv` names, since building every
 * other command's options and help is a twentieth of a short run; else all of them (help, an unknown
 * command's suggestions, a global flag before the command, a command that lists the others).
 */
function specsFor(argv: readonly string[]): readonly CommandSpec[] {
  const spec = COMMANDS.find((candidate) => candidate.names.includes(argv[2] ?? ""));
  return spec === undefined || spec.listsOthers ? COMMANDS : [spec];
}

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
  for (const spec of specsFor(argv)) spec.register(program);
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
