import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { DEFAULT_CONFIG_PATH, DEFAULT_DATA_DIR } from "../../config/load-config.js";
import { UsageError } from "../../errors/usage-error.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { type CleanEntry, cleanWorktrees } from "../../workspace/run-workspace-clean.js";
import { loadConfig } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";

export interface CleanCommandOptions {
  dryRun?: boolean;
  force?: boolean;
  config?: string;
  cwd?: string;
}

/** The data dir, sessions and db of the config, or the defaults when the checkout has no config. */
function cleanPaths(cwd: string, configPath: string | undefined) {
  if (configPath !== undefined || existsSync(path.join(cwd, DEFAULT_CONFIG_PATH))) {
    const config = loadConfig({ cwd, configPath });
    return { dataDir: config.dataDir, sessionsDir: config.sessionsDir, dbPath: config.dbPath };
  }
  const dataDir = path.join(cwd, DEFAULT_DATA_DIR);
  return { dataDir, sessionsDir: path.join(dataDir, "sessions"), dbPath: path.join(dataDir, "sssf.db") };
}

function line(entry: CleanEntry, cwd: string): string {
  if (entry.worktree === null) {
    const verb = {
      removed: "deleted",
      "would remove": "would delete",
      pruned: "deleted",
      skipped: "skipped",
    };
    return terminalSafe(`${verb[entry.outcome]} branch ${entry.branch ?? ""} (${entry.reason})`);
  }
  const where = path.relative(cwd, entry.worktree) || entry.worktree;
  return terminalSafe(`${entry.outcome} ${where} (${entry.reason})`);
}

/**
 * `sssf clean`: removes the worktrees of finished runs and prints one line per worktree (removed,
 * would remove, pruned, or skipped with why), and deletes finished runs' branches that hold no commit
 * (one line each). Branches with commits are kept. Returns the exit status: 0, or the error's status
 * (2 outside a git work tree).
 */
export async function cleanCommand(options: CleanCommandOptions): Promise<number> {
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const entries = await cleanWorktrees({
      checkout: cwd,
      ...cleanPaths(cwd, options.config),
      dryRun: options.dryRun === true,
      force: options.force === true,
    });
    const out = entries.map((entry) => line(entry, cwd));
    if (entries.length === 0) out.push("no run worktrees or branches without commits to clean");
    else if (entries.some((e) => e.branchOutcome === "kept" && e.outcome !== "skipped")) {
      out.push(
        "branches with commits are kept: review or delete them with git branch --list 'sssf/*' and git branch -D <branch>",
      );
    }
    process.stdout.write(`${out.join("\n")}\n`);
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf clean`. */
export function registerClean(program: Command): void {
  program
    .command("clean")
    .description(
      "remove the worktrees of finished runs, and their branches that hold no commit (branches with commits are kept); a failed run's uncommitted output is kept as refs/sssf/wip/<adw_id> and a patch in its session",
    )
    .option("--dry-run", "say what would be removed, remove nothing")
    .option(
      "--force",
      "also remove worktrees with other uncommitted changes than a failed run's output (those changes are lost)",
    )
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await cleanCommand(options);
    });
}
