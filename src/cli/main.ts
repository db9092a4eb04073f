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
  .addOption(configOption())
  .addOption(cwdOption())
  .action(async (workflow: string, prompt: string, options) => {
    const { runCommand } = await import("./run-command.js");
    process.exitCode = await runCommand(workflow, prompt, options);
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
  .description("run the prompt workflow against the bundled scripted agent in a scratch repo")
  .option("--dir <dir>", "where to create the scratch repo (default: a new temp folder)")
  .action(async (options) => {
    const { demoCommand } = await import("./demo-command.js");
    process.exitCode = await demoCommand(options);
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
