#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import type { CommandSpec } from "./command-spec.js";
import { approvalSpec } from "./commands/approval-spec.js";
import { cleanSpec } from "./commands/clean-spec.js";
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
import { traceListsSpec } from "./commands/trace-lists-spec.js";
import { uiSpec } from "./commands/ui-spec.js";
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

// A closed pipe (`sssf run … | head`) or a closed terminal (EIO after SIGHUP) must not crash a run:
// it keeps going and finalizes its session.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "EIO") throw error;
  });
}

function packageVersion(): string {
  // dist/cli/main.js and src/cli/main.ts both sit two levels below package.json.
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  return String(manifest.version);
}

/** Every command, in the order `sssf --help` lists them; each loads its module only when it runs. */
const COMMANDS: readonly CommandSpec[] = [
  runSpec,
  resumeSpec,
  approvalSpec,
  initSpec,
  listWorkflowsSpec,
  traceListsSpec,
  psSpec,
  killSpec,
  dbSpec,
  cleanSpec,
  doctorSpec,
  fakeModelSpec,
  demoSpec,
  uiSpec,
];
for (const command of COMMANDS) command.register(program);

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
