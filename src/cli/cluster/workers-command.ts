import type { Command } from "commander";
import type { PoolWorker } from "../../cluster/cluster-wire.js";
import { httpRequest, replyMessage } from "../../cluster/restate-http.js";
import { SssfError } from "../../errors/sssf-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";
import { optionalConfig } from "./cluster-config.js";
import { clusterUrl } from "./cluster-urls.js";

export interface WorkersCommandOptions {
  pool?: string;
  /** `--forget <id>`: drop a stopped worker from the pool's list. */
  forget?: string;
  json?: boolean;
  config?: string;
  cwd?: string;
}

/** `sssf workers`: the pool's workers, live first, with the runs each executes. */
export async function workersCommand(options: WorkersCommandOptions): Promise<number> {
  try {
    const pool = clusterUrl("pool", options.pool, optionalConfig(options));
    if (options.forget !== undefined) return await forgetWorker(pool, options.forget);
    let body: string;
    try {
      const reply = await httpRequest("GET", `${pool.replace(/\/+$/, "")}/pool/workers`, undefined);
      if (reply.status !== 200) throw new Error(replyMessage(reply));
      body = reply.body;
    } catch (error) {
      throw new SssfError("usage", `--pool: cannot ask the pool at ${pool}: ${(error as Error).message}`);
    }
    const workers = (JSON.parse(body) as { workers: PoolWorker[] }).workers.sort(
      (a, b) => Number(b.live) - Number(a.live) || a.id.localeCompare(b.id),
    );
    if (options.json === true) {
      process.stdout.write(`${JSON.stringify({ workers }, null, 2)}\n`);
      return 0;
    }
    if (workers.length === 0) {
      process.stdout.write(`no worker has joined the pool at ${pool}\n`);
      return 0;
    }
    for (const worker of workers) process.stdout.write(`${terminalSafe(workerLine(worker))}\n`);
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf workers --forget <id>`: 0 forgotten; a usage error when the pool knows no such worker or it is live. */
async function forgetWorker(pool: string, id: string): Promise<number> {
  let reply: Awaited<ReturnType<typeof httpRequest>>;
  try {
    reply = await httpRequest("POST", `${pool.replace(/\/+$/, "")}/pool/forget`, { id });
  } catch (error) {
    throw new SssfError("usage", `--pool: cannot ask the pool at ${pool}: ${(error as Error).message}`);
  }
  if (reply.status !== 200) throw new UsageError(`--forget: ${replyMessage(reply)}`, "--forget");
  process.stdout.write(`${terminalSafe(replyMessage(reply))}\n`);
  return 0;
}

/**
 * One worker's line. A gone worker's runs are what it ran when last heard from, not what it runs:
 * Restate has moved them to another worker (whose line names them).
 */
function workerLine(worker: PoolWorker): string {
  const runs = worker.runs.map((run) => `${run.adw_id} ${run.workflow}`).join(", ");
  const seen = `(last seen ${worker.last_seen})`;
  if (!worker.live)
    return `${worker.id}  gone  ${worker.url}  ${runs === "" ? "was idle" : `was running ${runs}`}  ${seen}`;
  const state = worker.draining ? "draining" : "live";
  return `${worker.id}  ${state}  ${worker.url}  ${worker.runs.length}/${worker.slots} slots  ${runs || "idle"}  ${seen}`;
}

/** `sssf workers`: the cluster's workers and their runs (docs/cluster.md). */
export function registerWorkers(program: Command): void {
  program
    .command("workers")
    .description("list the cluster's workers and the runs they execute")
    .option("--pool <url>", "the pool's URL (default $SSSF_POOL, then engine.restate.pool)")
    .option("--json", "print the list as JSON")
    .option("--forget <id>", "drop a stopped worker from the list (a drained one goes by itself)")
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await workersCommand(options);
    });
}
