#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { reportError } from "./report-error.js";

/** Global flags every command accepts. */
export interface GlobalOptions {
  verbose?: boolean;
}

const program = new Command("sssf")
  .description("Super Simple Software Factory: AI coding agents as bounded nodes in workflows that code owns")
  .version(packageVersion(), "-V, --version")
  .option("--verbose", "print stack traces and extra detail on errors")
  .showHelpAfterError("(run sssf --help for usage)")
  .exitOverride();

// A closed pipe (`sssf run … | head`) must not crash a run: it keeps going and finalizes its session.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

function packageVersion(): string {
  // dist/cli/main.js and src/cli/main.ts both sit two levels below package.json.
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  return String(manifest.version);
}

const configOption = () =>
  new Option("--config <path>", "config file (default adws/adw_sssf_config/sssf.config.yaml)");
const cwdOption = () => new Option("--cwd <dir>", "repo root to run in (default: current directory)");
const dbOption = () =>
  new Option("--db <path>", "trace database (default: observability.db from the config)");

program
  .command("run")
  .description("run a workflow on a request")
  .argument("<workflow>", "workflow name (sssf run prompt …)")
  .argument("<prompt>", "the request, or a path to a file holding it")
  .option("--agent <name>", "agent to use for workflows that take one (prompt)")
  .option("--adw-id <id>", "join an existing session (agents resume) or name a new one")
  .option("--in-place", "work in the checkout itself instead of a worktree on branch sssf/<adw_id>")
  .option("--base <ref>", "commit-ish the run's branch starts from (default HEAD)")
  .option("--merge", "fast-forward the base branch to sssf/<adw_id> when the run is accepted")
  .option("--yes", "approve every question the workflow asks the engineer instead of waiting")
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (workflow: string, prompt: string, options) => {
    const { runCommand } = await import("./run-command.js");
    process.exitCode = await runCommand(workflow, prompt, options);
  });

for (const [name, description] of [
  ["approve", "approve the phase of a running session that waits for the engineer"],
  ["reject", "reject the phase of a running session that waits for the engineer (--reason required)"],
] as const) {
  program
    .command(name)
    .description(description)
    .argument("<adw_id>", "session id")
    .option("--reason <text>", name === "reject" ? "why (required; the workflow sees it)" : "why (optional)")
    .option("--phase <name|number>", "which phase, when several of the session wait at once")
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (adwId: string, options) => {
      const { approvalCommand } = await import("./approval-command.js");
      process.exitCode = await approvalCommand(name, adwId, options);
    });
}

program
  .command("init")
  .description("write the roster, prompts, detected quality suites and .gitignore lines (never overwrites)")
  .addOption(cwdOption())
  .option(
    "--coding-agent <id>",
    "runtime every agent uses: pi, claude_code, codex, gemini or opencode (default pi)",
  )
  .option("--model <id>", "model every agent uses (default: the coding agent's own choice)")
  .option("--sdd", "also write the sdd workflow's eight agents and their prompts (docs/sdd.md)")
  .action(async (options) => {
    const { initCommand } = await import("./init-command.js");
    process.exitCode = await initCommand(options);
  });

program
  .command("list")
  .description("list every workflow (built-in and adws/adw_<name>.ts) with its phases, agents and suites")
  .option("--json", "print JSON instead of text")
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (options) => {
    const { listWorkflowsCommand } = await import("./list-workflows-command.js");
    process.exitCode = await listWorkflowsCommand(options);
  });

for (const [name, description, needsId] of [
  ["sessions", "list sessions, newest first", false],
  ["phases", "list the phases of a session", true],
  ["events", "list the trace events of a session", true],
  ["envelopes", "list every envelope attempt of a session", true],
] as const) {
  const command = program.command(name).description(description);
  if (needsId) command.argument("<adw_id>", "session id");
  command
    .option("--json", "print JSON instead of a table")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption());
  if (name === "sessions")
    command
      .option("--limit <n>", "at most this many sessions", "50")
      .option("--all", "include archived sessions");
  if (name === "events") command.option("--type <type>", "only events of this type (tool_call, error, …)");
  command.action(async (...args: unknown[]) => {
    const { listCommand } = await import("./list-commands.js");
    const adwId = needsId ? (args[0] as string) : undefined;
    const options = (needsId ? args[1] : args[0]) as Record<string, unknown>;
    process.exitCode = await listCommand(name, adwId, options);
  });
}

program
  .command("db")
  .description("trace database maintenance")
  .command("rebuild")
  .description("recreate the trace database from the session files (the old one is kept as a backup)")
  .addOption(dbOption())
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (options) => {
    const { dbRebuildCommand } = await import("./db-command.js");
    process.exitCode = await dbRebuildCommand(options);
  });

program
  .command("clean")
  .description("remove the worktrees of finished runs (their sssf/<adw_id> branches are kept)")
  .option("--dry-run", "say what would be removed, remove nothing")
  .option("--force", "also remove worktrees with uncommitted changes (those changes are lost)")
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (options) => {
    const { cleanCommand } = await import("./clean-command.js");
    process.exitCode = await cleanCommand(options);
  });

program
  .command("doctor")
  .description("check every agent's runtime, model, API-key variables and prompts, and the quality suites")
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (options) => {
    const { doctorCommand } = await import("./doctor-command.js");
    process.exitCode = await doctorCommand(options);
  });

program
  .command("fake-model")
  .description("serve a scripted fake model API (and an egress trap) on 127.0.0.1 for testing agent CLIs")
  .option("--script <file>", "JSON script of steps to play (default: every request gets the echo reply)")
  .option("--port <n>", "port to listen on (default 0: a free port)")
  .option("--log <file>", "append every request and egress attempt to this JSONL file")
  .action(async (options) => {
    const { fakeModelCommand } = await import("./fake-model-command.js");
    process.exitCode = await fakeModelCommand(options);
  });

program
  .command("demo")
  .description("run simple-sdlc in a scratch repo through the real pi CLI against the bundled fake model")
  .option("--dir <dir>", "where to create the scratch repo: empty or absent (default: a new temp folder)")
  .action(async (options) => {
    const { demoCommand } = await import("./demo-command.js");
    // The trace hints name `sssf ui` only when this build has it.
    const ui = program.commands.some((command) => command.name() === "ui");
    process.exitCode = await demoCommand({ ...options, ui });
  });

program
  .command("ui")
  .description("serve the live trace viewer on 127.0.0.1 (sessions, runs as waterfalls, phase detail)")
  .option("--port <n>", "port to listen on (default 4477 or the next free one; 0 = any free port)")
  .option("--host <host>", "interface to bind (default 127.0.0.1; anything else exposes the trace)")
  .addOption(dbOption())
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (options) => {
    const { uiCommand } = await import("./ui-command.js");
    process.exitCode = await uiCommand(options);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version print and exit 0; every other commander error is a usage error.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.exitCode = reportError(error, Boolean(program.opts<GlobalOptions>().verbose));
  }
}
