/**
 * `sssf worker` (docs/cluster.md): serves the `sssfRun` workflow to Restate over HTTP/1.1, beats to
 * the pool every second (who it is, its slots, what it runs), and executes each run Restate hands it.
 * SIGTERM drains: it takes no new run and exits once its runs ended; a second SIGTERM exits at once,
 * and Restate moves its runs to other workers.
 */

import { randomBytes } from "node:crypto";
import http from "node:http";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { SssfError } from "../errors/sssf-error.js";
import type { ClusterRunRequest, ClusterRunResult, PoolWorker, WorkerBeat } from "./cluster-wire.js";
import { isMetricsRequest, startWorkerMetrics } from "./metrics.js";
import { httpRequest, reachableHost } from "./restate-http.js";
import { loadRestateSdk, runWorkflowService } from "./restate-service.js";
import { executeClusterRun, type WorkerContext } from "./worker-run.js";

export interface WorkerOptions {
  /** The pool's URL, which this worker beats to. */
  pool: string;
  host: string;
  port: number;
  /** The URL the pool reaches this worker at (default `http://<host>:<port>`). */
  advertise?: string;
  slots: number;
  /** See RunTimeouts. */
  runTimeoutMs: number;
  /** Everything a run needs but its request; `signal` is the worker's own. */
  context: Omit<WorkerContext, "signal" | "id">;
  log: (line: string) => void;
}

export interface RunningWorker {
  id: string;
  url: string;
  /** Stops taking runs and resolves once every run it executes has ended. */
  drain(): Promise<void>;
  /** Stops at once: running runs are aborted (Restate retries them elsewhere). */
  close(): Promise<void>;
}

/**
 * Waits while another live worker still executes run `adwId`: Restate retries an execution whose
 * connection broke (a Restate restart, a pool restart) although its worker goes on with it. Taking the
 * run over then would run its phases twice; once that worker ended it or died, this one goes on.
 */
async function waitWhileLiveElsewhere(
  pool: string,
  self: string,
  adwId: string,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  let said = false;
  while (!signal.aborted) {
    let holder: string | undefined;
    try {
      const reply = await httpRequest("GET", `${pool.replace(/\/+$/, "")}/pool/workers`, undefined);
      const { workers } = JSON.parse(reply.body) as { workers: PoolWorker[] };
      holder = workers.find((w) => w.live && w.id !== self && w.runs.some((run) => run.adw_id === adwId))?.id;
    } catch {
      holder = undefined;
    }
    if (holder === undefined) return;
    if (!said) log(`run ${adwId}: worker ${holder} still runs it; waiting for it to end or die`);
    said = true;
    await sleep(1000, undefined, { signal }).catch(() => undefined);
  }
}

/** `SSSF_RESTATE_IDENTITY_KEYS`: Restate's public keys (`publickeyv1_…`, comma-separated), checked. */
function identityKeys(value: string | undefined): string[] {
  const keys = (value ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key !== "");
  for (const key of keys)
    if (!/^publickeyv1_[1-9A-HJ-NP-Za-km-z]+$/.test(key))
      throw new SssfError(
        "usage",
        `SSSF_RESTATE_IDENTITY_KEYS: "${key}" is not a Restate public key (publickeyv1_…, as restate-server logs it at start-up)`,
      );
  return keys;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const sdk = await loadRestateSdk();
  const id = `${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;
  const stop = new AbortController();
  const running = new Map<string, { workflow: string; started_at: string; done: Promise<unknown> }>();
  let draining = false;
  let waiting = 0;
  const metrics = startWorkerMetrics({ runs: () => ({ running: running.size }), queueDepth: () => waiting });

  const execute = async (request: ClusterRunRequest): Promise<ClusterRunResult> => {
    // Restate retried an execution this worker still runs (its connection broke, a restart): the same one.
    const here = running.get(request.adw_id);
    if (here !== undefined) return (await here.done) as ClusterRunResult;
    waiting += 1;
    try {
      await waitWhileLiveElsewhere(options.pool, id, request.adw_id, stop.signal, options.log);
    } finally {
      waiting -= 1;
    }
    const started = new Date().toISOString();
    options.log(`run ${request.adw_id} ${request.workflow}: started`);
    const done = executeClusterRun(request, { ...options.context, id, signal: stop.signal });
    running.set(request.adw_id, { workflow: request.workflow, started_at: started, done });
    try {
      const result = await done;
      options.log(
        `run ${request.adw_id}: ${result.accepted ? "accepted" : "not accepted"}: ${result.reason}`,
      );
      metrics.runsEnded.inc({ outcome: result.accepted ? "accepted" : "not_accepted" });
      return result;
    } catch (error) {
      metrics.runsEnded.inc({ outcome: "error" });
      options.log(`run ${request.adw_id}: could not run: ${(error as Error).message}`);
      throw error;
    } finally {
      running.delete(request.adw_id);
    }
  };

  const service = runWorkflowService(sdk, execute, { runMs: options.runTimeoutMs });
  // Restate's request identity (docs/cluster.md#restate): only requests it signed are served.
  const keys = identityKeys(process.env.SSSF_RESTATE_IDENTITY_KEYS);
  const endpoint = sdk.endpoint().bind(service);
  const handler = (keys.length > 0 ? endpoint.withIdentityV1(...keys) : endpoint).http1Handler();
  // Restate's requests, and Prometheus's scrape of /metrics beside them.
  const server = http.createServer((req, res) =>
    isMetricsRequest(req) ? void metrics.serve(res) : handler(req, res),
  );
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const url = options.advertise ?? `http://${reachableHost(options.host)}:${port}`;
  const started = new Date().toISOString();

  const beat = async () => {
    const body: WorkerBeat = {
      id,
      url,
      host: hostname(),
      pid: process.pid,
      slots: options.slots,
      runs: [...running].map(([adw_id, run]) => ({
        adw_id,
        workflow: run.workflow,
        started_at: run.started_at,
      })),
      started_at: started,
      draining,
    };
    await httpRequest("POST", `${options.pool.replace(/\/+$/, "")}/pool/beat`, body);
  };
  let joined = false;
  const beating = (async () => {
    while (!stop.signal.aborted) {
      try {
        await beat();
        if (!joined) options.log(`joined the pool at ${options.pool} as ${id} (${url})`);
        joined = true;
      } catch (error) {
        if (joined) options.log(`cannot reach the pool at ${options.pool}: ${(error as Error).message}`);
        joined = false;
      }
      await sleep(1000, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  })();

  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    id,
    url,
    async drain() {
      draining = true;
      await beat().catch(() => undefined);
      await Promise.allSettled([...running.values()].map((run) => run.done));
      // Drained with no run: the pool forgets this worker once it falls silent.
      await beat().catch(() => undefined);
      stop.abort("drained");
      await beating;
      await closeServer();
    },
    async close() {
      stop.abort("worker stopped");
      await Promise.allSettled([...running.values()].map((run) => run.done));
      await beating;
      await closeServer();
    },
  };
}
