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
import { openTraceStore } from "../trace/open-store.js";
import type { ClusterRunRequest, ClusterRunResult, PoolWorker, WorkerBeat } from "./cluster-wire.js";
import { isMetricsRequest, startWorkerMetrics } from "./metrics.js";
import { httpRequest, reachableHost } from "./restate-http.js";
import { loadRestateSdk, runWorkflowService } from "./restate-service.js";
import { LEASE_RENEW_MS, type LeaseHolder, RunLeases, resubmissionRefused } from "./run-lease.js";
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

/** True when the pool lists `worker` and saw it die (its connection broke, or it fell silent). */
async function poolSawDie(pool: string, worker: string): Promise<boolean> {
  const reply = await httpRequest("GET", `${pool.replace(/\/+$/, "")}/pool/workers`, undefined);
  const { workers } = JSON.parse(reply.body) as { workers: PoolWorker[] };
  const known = workers.find((w) => w.id === worker);
  return known !== undefined && !known.live;
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

  const leaseStore = await openTraceStore(options.context.dbPath);
  const leases = await RunLeases.open(leaseStore);
  const me: LeaseHolder = { worker: id, host: hostname(), pid: process.pid };
  // Every execution this process has begun, leased or waiting for its lease, by adw_id.
  const inflight = new Map<string, Promise<ClusterRunResult>>();

  const executeLeased = async (request: ClusterRunRequest, invocation: string): Promise<ClusterRunResult> => {
    const adwId = request.adw_id;
    // A retry while the run's lease is held by a live worker (a pool or Restate restart broke the
    // connection, not the worker) waits for that worker: taking it over would run its phase twice.
    waiting += 1;
    const lease = await leases
      .acquire(adwId, invocation, me, {
        signal: stop.signal,
        seenDead: (worker) => poolSawDie(options.pool, worker),
        waiting: (held) =>
          options.log(
            `run ${adwId}: worker ${held.worker} holds its lease until ${new Date(held.expires_ms).toISOString()} and renews it while it runs it; waiting for it to end or die`,
          ),
      })
      .finally(() => {
        waiting -= 1;
      });
    if (lease.kind === "other-invocation")
      throw resubmissionRefused(
        adwId,
        `the cluster ran a run with this id before (Restate invocation ${lease.lease.invocation})`,
      );
    if (lease.kind === "taken" && lease.why !== "released")
      options.log(
        `run ${adwId}: takes the lease of worker ${lease.from.worker} (${lease.why === "expired" ? "it stopped renewing it" : "the pool saw it die"})`,
      );
    const started = new Date().toISOString();
    options.log(`run ${adwId} ${request.workflow}: started`);
    const done = executeClusterRun(
      request,
      { ...options.context, id, signal: stop.signal },
      { firstExecution: lease.kind === "new" },
    );
    running.set(adwId, { workflow: request.workflow, started_at: started, done });
    try {
      const result = await done;
      options.log(`run ${adwId}: ${result.accepted ? "accepted" : "not accepted"}: ${result.reason}`);
      metrics.runsEnded.inc({ outcome: result.accepted ? "accepted" : "not_accepted" });
      return result;
    } catch (error) {
      metrics.runsEnded.inc({ outcome: "error" });
      options.log(`run ${adwId}: could not run: ${(error as Error).message}`);
      throw error;
    } finally {
      running.delete(adwId);
      // Free at once for the next retry (a fenced attempt's lease is another worker's: untouched).
      await leases.release(adwId, id).catch(() => undefined);
    }
  };

  const execute = (request: ClusterRunRequest, invocation: string): Promise<ClusterRunResult> => {
    // Restate retried an execution this worker still runs (its connection broke, a restart): the same one.
    const known = inflight.get(request.adw_id);
    if (known !== undefined) return known;
    const done = executeLeased(request, invocation).finally(() => inflight.delete(request.adw_id));
    inflight.set(request.adw_id, done);
    return done;
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
  let renewedAt = 0;
  const beating = (async () => {
    while (!stop.signal.aborted) {
      // The leases first: the trace database, not the pool, says whether this worker still runs them.
      if (running.size > 0 && Date.now() - renewedAt >= LEASE_RENEW_MS) {
        await leases.renew(id).then(
          () => {
            renewedAt = Date.now();
          },
          (error: unknown) => options.log(`cannot renew the leases of its runs: ${(error as Error).message}`),
        );
      }
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
      await Promise.allSettled([...inflight.values()]);
      // Drained with no run: the pool forgets this worker once it falls silent.
      await beat().catch(() => undefined);
      stop.abort("drained");
      await beating;
      await closeServer();
      await leaseStore.close();
    },
    async close() {
      stop.abort("worker stopped");
      await Promise.allSettled([...inflight.values()]);
      await beating;
      await closeServer();
      await leaseStore.close();
    },
  };
}
