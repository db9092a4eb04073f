/** The `sssf` program: every command, the global flags, and how errors become exit codes. */
import { Command, CommanderError } from "commander";
import { UsageError } from "../errors/usage-error.js";
import { packageVersion } from "../util/package-root.js";
import { jsonTerminalSafe } from "../util/terminal-text.js";
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

type Register = (program: Command) => void;

/**
 * Every command's module, by the command names it registers, in the order `sssf --help` lists them.
 * Only the invoked command's module is loaded: the others bring the engine, the UI server, the
 * cluster's HTTP stack, which a `sssf ps` or a `sssf run` never uses. Help and an unknown command load
 * them all (the listing, commander's suggestions), and so does `sssf completion`.
 */
const COMMANDS: readonly { names: readonly string[]; load: () => Promise<Register>; needsAll?: true }[] = [
  { names: ["run"], load: async () => (await import("./commands/run.js")).registerRun },
  { names: ["resume"], load: async () => (await import("./commands/resume.js")).registerResume },
  { names: ["replay"], load: async () => (await import("./commands/replay.js")).registerReplay },
  { names: ["pool"], load: async () => (await import("./cluster/pool-command.js")).registerPool },
  { names: ["worker"], load: async () => (await import("./cluster/worker-command.js")).registerWorker },
  { names: ["workers"], load: async () => (await import("./cluster/workers-command.js")).registerWorkers },
  {
    names: ["approve", "reject"],
    load: async () => (await import("./commands/approval.js")).registerApproval,
  },
  { names: ["merge"], load: async () => (await import("./commands/merge.js")).registerMerge },
  { names: ["init"], load: async () => (await import("./init/init-command.js")).registerInit },
  { names: ["list"], load: async () => (await import("./commands/list-workflows.js")).registerListWorkflows },
  {
    names: ["sessions", "phases", "events", "envelopes"],
    load: async () => (await import("./commands/trace-lists.js")).registerTraceLists,
  },
  { names: ["tail"], load: async () => (await import("./commands/tail.js")).registerTail },
  { names: ["ps"], load: async () => (await import("./commands/ps.js")).registerPs },
  { names: ["kill"], load: async () => (await import("./commands/kill.js")).registerKill },
  { names: ["db"], load: async () => (await import("./commands/db.js")).registerDb },
  { names: ["clean"], load: async () => (await import("./commands/clean.js")).registerClean },
  { names: ["doctor"], load: async () => (await import("./commands/doctor.js")).registerDoctor },
  {
    names: ["export-script"],
    load: async () => (await import("./commands/export-script.js")).registerExportScript,
  },
  { names: ["fake-model"], load: async () => (await import("./commands/fake-model.js")).registerFakeModel },
  { names: ["demo"], load: async () => (await import("./commands/demo.js")).registerDemo },
  { names: ["ui"], load: async () => (await import("./commands/ui.js")).registerUi },
  // The shell scripts complete every command and its flags.
  {
    names: ["completion"],
    load: async () => (await import("./commands/completion.js")).registerCompletion,
    needsAll: true,
  },
];

/** The command `args` invoke (the first word after the global flags), or undefined. */
function commandName(args: readonly string[]): string | undefined {
  return args.slice(2).find((arg) => !arg.startsWith("-"));
}

/**
 * Registers the invoked command alone when it is known, none for `sssf --version`, else every command
 * (help, a typo).
 */
async function registerCommands(args: readonly string[]): Promise<void> {
  const name = commandName(args);
  const version = args.includes("-v") || args.includes("--version");
  if (name === undefined && version && !args.includes("--help") && !args.includes("-h")) return;
  const invoked = COMMANDS.find((entry) => name !== undefined && entry.names.includes(name));
  const entries = invoked && !invoked.needsAll ? [invoked] : COMMANDS;
  const registers = await Promise.all(entries.map((entry) => entry.load()));
  for (const register of registers) register(program);
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
  try {
    await registerCommands(argv);
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
