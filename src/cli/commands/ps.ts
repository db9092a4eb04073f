import type { Command } from "commander";
import { listLiveRuns } from "../../session/live-runs.js";
import { jsonTerminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption, dbOption } from "../cli-options.js";
import { agentText, formatDuration, table } from "../format.js";
import { openReadTrace, type ReadOptions } from "../read-context.js";
import { reportError } from "../report-error.js";

interface PsOptions extends ReadOptions {
  json?: boolean;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * `sssf ps`: the runs whose sssf is alive on this host (after the reaper closed the dead ones), as a
 * table or, with --json, an array of `LiveRun`s. Cells go through `table` (terminal-safe), agent text
 * through `agentText`; the JSON through `jsonTerminalSafe`.
 */
export async function psCommand(options: PsOptions): Promise<number> {
  try {
    const { db, sessionsDir } = await openReadTrace(options);
    try {
      const runs = await listLiveRuns(db, sessionsDir);
      if (options.json) {
        process.stdout.write(`${jsonTerminalSafe(JSON.stringify(runs))}\n`);
        return 0;
      }
      if (runs.length === 0) {
        process.stdout.write("no live runs\n");
        return 0;
      }
      const rows = runs.map((run) => [
        run.adw_id,
        run.pid === null ? "-" : String(run.pid),
        run.workflow,
        run.phases.map((p) => `${pad(p.number)} ${p.name}`).join(", ") || "-",
        run.agents.map((a) => `${a.agent ?? "suite"}:${a.pid}`).join(", ") || "-",
        formatDuration(run.elapsed_ms),
        agentText(run.request, 50),
      ]);
      process.stdout.write(
        `${table(["ADW_ID", "PID", "WORKFLOW", "PHASE", "AGENTS", "ELAPSED", "REQUEST"], rows)}\n`,
      );
      return 0;
    } finally {
      await db.close();
    }
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf ps`. */
export function registerPs(program: Command): void {
  program
    .command("ps")
    .description(
      "list the live runs on this host: workflow, current phase, agents with their pids, elapsed time",
    )
    .option("--json", "print JSON instead of a table")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await psCommand(options);
    });
}
