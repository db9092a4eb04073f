import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { DEFAULT_CONFIG_PATH } from "../../config/config-schema.js";
import type { MergeStrategy } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import { checkAdwId } from "../../session/adw-id.js";
import { openTraceStore } from "../../trace/open-store.js";
import { traceMayExist } from "../../trace/trace-location.js";
import { jsonTerminalSafe, terminalSafe } from "../../util/terminal-text.js";
import { type LandResult, landRun, MergeRefusedError } from "../../workspace/land-run.js";
import { configOption, cwdOption } from "../cli-options.js";
import { tracePaths } from "../read-context.js";
import { reportError } from "../report-error.js";

/** Flags of `sssf merge`. */
export interface MergeCommandOptions {
  into?: string;
  json?: boolean;
  config?: string;
  cwd?: string;
}

/** The landed commits and files, then the new HEAD, for the terminal. */
function landedLines(result: LandResult): string {
  const commits = result.commits.map((commit) => `   ${commit.sha.slice(0, 12)} ${commit.subject}`);
  const files =
    result.files.length <= 20
      ? result.files
      : [...result.files.slice(0, 20), `… ${result.files.length - 20} more`];
  return [
    result.summary,
    `   ${result.base}: ${result.from.slice(0, 12)} -> ${result.head.slice(0, 12)}`,
    `commits (${result.commits.length}):`,
    ...commits,
    `files (${result.files.length}):`,
    ...files.map((file) => `   ${file}`),
    `   the branch ${result.branch} and its worktree stay until sssf clean`,
    "",
  ].join("\n");
}

/**
 * `sssf merge <adw_id>`: lands an accepted run's branch in the branch it was started from (docs/worktrees.md).
 * Returns the exit status: 0 once merged, 1 refused (one line why), 2 for usage (an unknown session).
 */
export async function mergeCommand(adwId: string, options: MergeCommandOptions): Promise<number> {
  const verbose = process.argv.includes("--verbose");
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    try {
      checkAdwId(adwId);
    } catch {
      throw new UsageError(`"${adwId}" is not a session id`, "<adw_id>");
    }
    const { dbPath, sessionsDir } = await tracePaths({
      cwd,
      ...(options.config ? { config: options.config } : {}),
    });
    if (!traceMayExist(dbPath, existsSync))
      throw new UsageError(`no session ${adwId}: no trace database at ${dbPath}`, "<adw_id>");
    // The strategy is the config's when there is one; a repository without one merges fast-forward only.
    let strategy: MergeStrategy = "ff";
    if (options.config || existsSync(path.join(cwd, DEFAULT_CONFIG_PATH))) {
      const { loadConfig } = await import("../builtin-plugins.js");
      const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
      strategy = config.merge?.strategy ?? "ff";
    }
    const db = await openTraceStore(dbPath);
    try {
      const result = await landRun(
        {
          db,
          sessionsDir,
          checkout: cwd,
          strategy,
          into: options.into,
        },
        adwId,
      );
      process.stdout.write(
        options.json
          ? `${jsonTerminalSafe(JSON.stringify(result))}\n`
          : terminalSafe(landedLines(result), { multiline: true }),
      );
      return 0;
    } finally {
      await db.close();
    }
  } catch (error) {
    if (error instanceof MergeRefusedError && options.json) {
      const body = { ...error.look, merged: false, error: { code: error.code, message: error.message } };
      process.stdout.write(`${jsonTerminalSafe(JSON.stringify(body))}\n`);
      return error.exitCode;
    }
    return reportError(error, verbose, { json: options.json === true });
  }
}

/** `sssf merge <adw_id>`. */
export function registerMerge(program: Command): void {
  program
    .command("merge")
    .description("merge an accepted run's branch into the branch it was started from")
    .argument("<adw_id>", "session id")
    .option(
      "--into <branch>",
      "the branch to merge into (default: the run's --merge branch, else the branch it was started from)",
    )
    .option("--json", "print one JSON object: what landed, or why not")
    .addOption(configOption())
    .addOption(cwdOption())
    .addHelpText(
      "after",
      `
Lands sssf/<workflow>/<adw_id> in the checked-out base branch: a fast-forward, or, when the base
moved and merge.strategy is merge-commit, a merge commit under your git identity. Refuses with one
line (exit 1) when the run is running, not accepted, ran in place or lost its branch, when the merge
would conflict (naming the files), when the checkout is on another branch or has uncommitted changes
to files the merge changes. Nothing in the checkout changes on a refusal.`,
    )
    .action(async (adwId: string, options: MergeCommandOptions) => {
      process.exitCode = await mergeCommand(adwId, options);
    });
}
