import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { SssfConfig } from "../../config/config-types.js";
import { DEFAULT_CONFIG_PATH } from "../../config/load-config.js";
import { UsageError } from "../../errors/usage-error.js";
import { jsonTerminalSafe } from "../../util/terminal-text.js";
import { listWorkflows } from "../../workflows/index.js";
import { loadConfig } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";
import { renderListing, type WorkflowListing, workflowRows } from "./list-workflows-rows.js";

/** The flags of `sssf list`. */
export interface ListWorkflowsOptions {
  json?: boolean;
  cwd?: string;
  config?: string;
}

function tryLoadConfig(cwd: string, configPath: string | undefined) {
  const file = path.resolve(cwd, configPath ?? DEFAULT_CONFIG_PATH);
  try {
    const config: SssfConfig = loadConfig({ cwd, configPath });
    return { config, status: { file, loaded: true, error: null } };
  } catch (error) {
    return { config: null, status: { file, loaded: false, error: (error as Error).message } };
  }
}

/**
 * `sssf list`: every workflow (built-in and the repo's `adws/adw_<name>.ts`) with its description,
 * phases, agents, suites and source; agents and suites the config lacks are marked when it loads.
 * Exit code 0, or 2 when a repo-local workflow file is broken (it is still listed, with its error).
 */
export async function listWorkflowsCommand(options: ListWorkflowsOptions): Promise<number> {
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const { config, status } = tryLoadConfig(cwd, options.config);
    const listing: WorkflowListing = {
      config: status,
      workflows: workflowRows(await listWorkflows({ repoRoot: cwd }), config),
    };
    process.stdout.write(
      options.json ? `${jsonTerminalSafe(JSON.stringify(listing, null, 2))}\n` : renderListing(listing, cwd),
    );
    return listing.workflows.some((row) => row.error !== null) ? 2 : 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf list`: the workflows. */
export function registerListWorkflows(program: Command): void {
  program
    .command("list")
    .description("list every workflow (built-in and adws/adw_<name>.ts) with its phases, agents and suites")
    .option("--json", "print JSON instead of text")
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await listWorkflowsCommand(options);
    });
}
