import path from "node:path";
import type { Command } from "commander";
import type { EngineerAnswer } from "../../api/run-api.js";
import { awaitAnswer } from "../../cluster/restate-http.js";
import { WorkerRepo } from "../../cluster/worker-repo.js";
import { startWorker } from "../../cluster/worker-server.js";
import { UsageError } from "../../errors/usage-error.js";
import { silentReporter } from "../../session/reporter.js";
import { openTraceStore } from "../../trace/open-store.js";
import { displayTraceLocation, traceLocation } from "../../trace/trace-location.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";
import { listenOption, logLine, optionalConfig, parseCount, parseListen } from "./cluster-config.js";
import { clusterUrl } from "./cluster-urls.js";

export interface WorkerCommandOptions {
  remote: string;
  workDir: string;
  pool?: string;
  ingress?: string;
  db?: string;
  slots?: string;
  runTimeout?: string;
  listen?: string;
  advertise?: string;
  config?: string;
  cwd?: string;
}

/** The shared trace: `--db`, else `SSSF_DB`; a worker never guesses it. */
function sharedDb(flag: string | undefined): string {
  const value = flag ?? process.env.SSSF_DB;
  if (value === undefined || value === "")
    throw new UsageError(
      "--db: a worker writes the trace every worker, the CLI and the UI read: pass --db <file> or set SSSF_DB (docs/cluster.md)",
      "--db",
    );
  return traceLocation(process.cwd(), value);
}

/**
 * `sssf worker`: runs until a signal. The first SIGINT/SIGTERM drains (no new run; exits 0 once its
 * runs ended); a second exits at once, and Restate moves the runs it held to other workers.
 */
export async function workerCommand(options: WorkerCommandOptions): Promise<number> {
  try {
    const config = optionalConfig(options);
    const pool = clusterUrl("pool", options.pool, config);
    const ingress = (() => {
      try {
        return clusterUrl("ingress", options.ingress, config);
      } catch {
        return null;
      }
    })();
    const dbPath = sharedDb(options.db);
    // The worker writes the trace: create (or migrate) it now, and fail here, not at the first run,
    // when it cannot be reached.
    await (await openTraceStore(dbPath)).close();
    const slots = parseCount("--slots", options.slots, 2);
    const runTimeoutMs =
      parseCount(
        "--run-timeout",
        options.runTimeout,
        (config?.engine?.restate.runTimeoutMs ?? 86_400_000) / 1000,
        60,
      ) * 1000;
    const { host, port } = parseListen(options.listen, "127.0.0.1:0");
    const workDir = path.resolve(options.workDir);
    const log = logLine("sssf worker");
    const repo = new WorkerRepo(options.remote, workDir);
    await repo.prepare();
    if (ingress === null)
      log("no Restate ingress given (--ingress): engineer phases wait for sssf approve on this host only");
    const remoteAnswer =
      ingress === null
        ? undefined
        : async (question: { adwId: string; key: string }, signal: AbortSignal): Promise<EngineerAnswer> => {
            const answer = await awaitAnswer(ingress, question.adwId, question.key, signal);
            return { approved: answer.approved, reason: answer.reason, by: answer.by, at: answer.at };
          };
    const worker = await startWorker({
      pool,
      host,
      port,
      ...(options.advertise === undefined ? {} : { advertise: options.advertise }),
      slots,
      runTimeoutMs,
      context: {
        repo,
        registry: runtimes,
        loadRun: async (checkout, workflow) => ({
          workflow: await findWorkflow(workflow, { repoRoot: checkout }),
          config: loadConfig({ cwd: checkout }),
        }),
        dbPath,
        sessionsDir: path.join(workDir, "sessions"),
        remoteAnswer,
        answerVia: ingress === null ? {} : { restate_ingress: ingress },
        reporter: silentReporter,
      },
      log,
    });
    log(
      `worker ${worker.id} serves at ${worker.url} with ${slots} slot${slots === 1 ? "" : "s"}; trace ${displayTraceLocation(dbPath)}`,
    );
    await new Promise<void>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        log(`${signal}: draining (no new run; a second signal stops at once)`);
        const now = (again: NodeJS.Signals) => {
          log(`${again}: stopping now; Restate moves this worker's runs elsewhere`);
          process.exit(again === "SIGINT" ? 130 : 143);
        };
        process.once("SIGINT", now);
        process.once("SIGTERM", now);
        void worker.drain().then(resolve);
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
    });
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf worker`: runs the cluster's runs on this machine (docs/cluster.md). */
export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description(
      "run the cluster's runs on this machine: joins the pool, keeps a clone, pushes each run's branch",
    )
    .requiredOption("--remote <git-url>", "the repository's shared git remote (cloned once into --work-dir)")
    .requiredOption(
      "--work-dir <dir>",
      "where the worker keeps its clone, its runs' checkouts and their session files",
    )
    .option("--pool <url>", "the pool's URL (default $SSSF_POOL, then engine.restate.pool)")
    .option(
      "--ingress <url>",
      "Restate's ingress, for engineer answers (default $SSSF_RESTATE_INGRESS, then engine.restate.ingress)",
    )
    .option("--db <file>", "the trace every worker, the CLI and the UI share (default $SSSF_DB)")
    .option("--slots <n>", "how many runs at once (default 2)")
    .option(
      "--run-timeout <seconds>",
      "Restate's inactivity and abort timeouts: longer than the longest run (default 86400)",
    )
    .addOption(listenOption("127.0.0.1:0"))
    .option("--advertise <url>", "the URL the pool reaches this worker at (default http://<listen>)")
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await workerCommand(options);
    });
}
