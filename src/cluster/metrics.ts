/**
 * Prometheus metrics of `sssf pool` and `sssf worker` (docs/cluster.md#metrics), on prom-client: one
 * registry per process, served at `GET /metrics` on the address the process already listens on.
 * Counters and histograms are fed where things happen (a run handed out, a phase ended, a push);
 * gauges read the process's state when scraped.
 */

import type http from "node:http";
import { Counter, collectDefaultMetrics, Gauge, Histogram, type LabelValues, Registry } from "prom-client";

/** Seconds: a push takes a fraction of a second to a few; a phase seconds to an hour. */
const PUSH_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const PHASE_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800, 3600];

/** What a pool or worker reports when scraped; each gauge is read from it at that moment. */
export interface MetricsState {
  /** Runs by state (`running`, and on the pool `queued`: waiting in Restate for a worker). */
  runs(): Record<string, number>;
  /** Runs waiting here for a slot or for another worker to let go of them. */
  queueDepth(): number | Promise<number>;
  /** The pool only: its workers by state (`live`, `draining`, `gone`). */
  workers?(): Record<string, number>;
}

/** The metrics of one process. */
export class ClusterMetrics {
  readonly registry = new Registry();
  /** Runs that ended here, by outcome (`accepted`, `not_accepted`, `error`). */
  readonly runsEnded: Counter<"outcome">;
  /** Phases that ended here, by kind and status (`success`, `fail`, `interrupted`…). */
  readonly phases: Counter<"kind" | "status">;
  /** Runs taken over after another worker stopped running them (worker), or runs cut from a worker (pool). */
  readonly failovers: Counter;
  readonly pushSeconds: Histogram;
  readonly phaseSeconds: Histogram<"kind">;

  constructor(role: "pool" | "worker", state: MetricsState) {
    this.registry.setDefaultLabels({ role });
    collectDefaultMetrics({ register: this.registry, prefix: "sssf_process_" });
    const registers = [this.registry];
    this.runsEnded = new Counter({
      name: "sssf_runs_ended_total",
      help: "Runs that ended, by outcome (accepted, not_accepted, error)",
      labelNames: ["outcome"],
      registers,
    });
    this.phases = new Counter({
      name: "sssf_phases_total",
      help: "Phases that ended on this worker, by kind and status",
      labelNames: ["kind", "status"],
      registers,
    });
    this.failovers = new Counter({
      name: "sssf_failovers_total",
      help:
        role === "pool"
          ? "Run executions cut from a worker that failed or fell silent (Restate retries them elsewhere)"
          : "Runs this worker took over from another that stopped running them",
      registers,
    });
    this.pushSeconds = new Histogram({
      name: "sssf_push_duration_seconds",
      help: "git push of a run's work to the shared remote",
      buckets: PUSH_BUCKETS,
      registers,
    });
    this.phaseSeconds = new Histogram({
      name: "sssf_phase_duration_seconds",
      help: "Wall time of a phase, by kind",
      labelNames: ["kind"],
      buckets: PHASE_BUCKETS,
      registers,
    });
    new Gauge({
      name: "sssf_runs",
      help: "Runs by state, now",
      labelNames: ["state"],
      registers,
      collect() {
        setAll(this, "state", state.runs());
      },
    });
    new Gauge({
      name: "sssf_queue_depth",
      help:
        role === "pool"
          ? "Run executions Restate holds for want of a free slot"
          : "Runs waiting on this worker for another worker to let go of them",
      registers,
      async collect() {
        this.set(await state.queueDepth());
      },
    });
    const workers = state.workers;
    if (workers !== undefined)
      new Gauge({
        name: "sssf_workers",
        help: "Workers known to the pool, by state (live, draining, gone)",
        labelNames: ["state"],
        registers,
        collect() {
          setAll(this, "state", workers());
        },
      });
  }

  /** A phase that ended: counted, and its wall time observed. */
  phaseEnded(phase: { kind: string; status: string; duration_ms: number | null }): void {
    this.phases.inc({ kind: phase.kind, status: phase.status });
    if (phase.duration_ms !== null) this.phaseSeconds.observe({ kind: phase.kind }, phase.duration_ms / 1000);
  }

  /** Runs `push`, its wall time observed (failed pushes too). */
  async timePush<T>(push: () => Promise<T>): Promise<T> {
    const end = this.pushSeconds.startTimer();
    try {
      return await push();
    } finally {
      end();
    }
  }

  /** Answers `GET /metrics` in Prometheus's text format. */
  async serve(res: http.ServerResponse): Promise<void> {
    try {
      const body = await this.registry.metrics();
      res.writeHead(200, { "content-type": this.registry.contentType });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`metrics: ${(error as Error).message}\n`);
    }
  }
}

/** Every label value of `values` set, and the ones missing since the last scrape reset to 0. */
function setAll(gauge: Gauge<string>, label: string, values: Record<string, number>): void {
  gauge.reset();
  for (const [value, count] of Object.entries(values))
    gauge.set({ [label]: value } as LabelValues<string>, count);
}

/** True for the request `GET /metrics` (a query string allowed). */
export function isMetricsRequest(req: http.IncomingMessage): boolean {
  return req.method === "GET" && /^\/metrics(\?|$)/.test(req.url ?? "");
}

let workerMetrics: ClusterMetrics | undefined;

/** The worker's metrics, once `sssf worker` started them (undefined in a local run). */
export function currentWorkerMetrics(): ClusterMetrics | undefined {
  return workerMetrics;
}

/** Starts this process's worker metrics (one worker per process). */
export function startWorkerMetrics(state: MetricsState): ClusterMetrics {
  workerMetrics = new ClusterMetrics("worker", state);
  return workerMetrics;
}
