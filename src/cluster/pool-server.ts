/**
 * `sssf pool` (docs/cluster.md): the one address Restate calls for the `sssfRun` workflow. A Restate
 * deployment is one URI, so workers on many hosts join the pool, and the pool hands every request to a
 * live worker: a run's execution to the one with the most free slots, anything else to any live one.
 * When a worker dies mid-run its connection breaks, Restate retries, and the pool picks another.
 */

import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type PoolWorker, WorkerBeat } from "./cluster-wire.js";
import { ClusterMetrics, isMetricsRequest } from "./metrics.js";
import { restateQueueDepth } from "./metrics-restate.js";
import { reachableHost, registerDeployment } from "./restate-http.js";

/** A worker that has not beaten for this long is taken as gone. */
export const WORKER_SILENCE_MS = 10_000;

export interface PoolOptions {
  host: string;
  port: number;
  /** Restate's admin URL: the pool registers itself there once the first worker joined. */
  admin: string;
  /** The URL Restate reaches the pool at (default `http://<host>:<port>`). */
  advertise?: string;
  log: (line: string) => void;
}

interface Member {
  beat: WorkerBeat;
  lastSeen: number;
  inFlight: number;
  /** The requests handed to it that are still open: cut when it falls silent, so Restate retries them. */
  open: Set<http.ClientRequest>;
  /** A request to it failed: skipped until its next beat. */
  broken: boolean;
}

/** The requests that execute a run (the long ones): a cut one is a failover. */
const runRequests = new WeakSet<http.ClientRequest>();

/** The pool's state: who is live, and who has room. */
class Members {
  private readonly byId = new Map<string, Member>();

  beat(beat: WorkerBeat): boolean {
    const known = this.byId.get(beat.id);
    if (known) {
      known.beat = beat;
      known.lastSeen = Date.now();
      known.broken = false;
      return false;
    }
    this.byId.set(beat.id, { beat, lastSeen: Date.now(), inFlight: 0, broken: false, open: new Set() });
    return true;
  }

  private live(member: Member): boolean {
    return !member.broken && Date.now() - member.lastSeen < WORKER_SILENCE_MS;
  }

  /** The live worker for a request: for a run, the one with the most free slots (none when all are full). */
  pick(isRun: boolean): Member | undefined {
    let best: Member | undefined;
    let bestFree = Number.NEGATIVE_INFINITY;
    for (const member of this.byId.values()) {
      if (!this.live(member) || (isRun && member.beat.draining)) continue;
      // A restarted pool has handed nothing yet: the runs a worker beats about count as well.
      const free = member.beat.slots - Math.max(member.inFlight, member.beat.runs.length);
      if (isRun && free <= 0) continue;
      if (free > bestFree) {
        best = member;
        bestFree = free;
      }
    }
    return best;
  }

  list(): PoolWorker[] {
    return [...this.byId.values()].map((member) => ({
      ...member.beat,
      last_seen: new Date(member.lastSeen).toISOString(),
      live: this.live(member),
      in_flight: member.inFlight,
    }));
  }

  /**
   * Cuts the open requests of workers silent for longer than WORKER_SILENCE_MS (a host lost without
   * closing its connections), so Restate retries their runs elsewhere; forgets a drained worker (its
   * last beat said draining, with no run) once silent that long, and any other worker silent for a
   * minute. Returns the workers it cut and how many run executions they held.
   */
  sweep(): { id: string; runs: number }[] {
    const cut: { id: string; runs: number }[] = [];
    for (const [id, member] of this.byId) {
      const silent = Date.now() - member.lastSeen;
      if (silent > WORKER_SILENCE_MS && member.open.size > 0) {
        let runs = 0;
        for (const request of member.open) {
          if (runRequests.has(request)) runs++;
          request.destroy(new Error(`worker ${id} is silent`));
        }
        member.open.clear();
        cut.push({ id, runs });
      }
      const drained = member.beat.draining && member.beat.runs.length === 0;
      if (silent > 60_000 || (drained && silent > WORKER_SILENCE_MS)) this.byId.delete(id);
    }
    return cut;
  }

  /** Forgets worker `id` (`sssf workers --forget`): "unknown", "live" (refused: it would beat again), or "forgotten". */
  forget(id: string): "unknown" | "live" | "forgotten" {
    const member = this.byId.get(id);
    if (member === undefined) return "unknown";
    if (this.live(member)) return "live";
    this.byId.delete(id);
    return "forgotten";
  }

  /** Workers by state, and the runs they execute now (for /metrics). */
  counts(): { workers: Record<string, number>; running: number } {
    const workers: Record<string, number> = { live: 0, draining: 0, gone: 0 };
    let running = 0;
    for (const member of this.byId.values()) {
      const state = !this.live(member) ? "gone" : member.beat.draining ? "draining" : "live";
      workers[state] = (workers[state] ?? 0) + 1;
      running += member.inFlight;
    }
    return { workers, running };
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** `POST /pool/forget {"id"}`: 200 forgotten, 404 unknown, 409 still live (it would join again). */
async function forgetRoute(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  members: Members,
  log: (line: string) => void,
): Promise<void> {
  let id: string;
  try {
    const body = JSON.parse(await readBody(req)) as { id?: unknown };
    if (typeof body.id !== "string") throw new Error('expected {"id": "<worker id>"}');
    id = body.id;
  } catch (error) {
    reply(res, 400, { message: `bad request: ${(error as Error).message}` });
    return;
  }
  const outcome = members.forget(id);
  if (outcome === "forgotten") log(`worker ${id} forgotten (sssf workers --forget)`);
  const status = { forgotten: 200, unknown: 404, live: 409 }[outcome];
  const message = {
    forgotten: `worker ${id} forgotten`,
    unknown: `no worker ${id} in the pool`,
    live: `worker ${id} is live: drain it first (SIGTERM); it is forgotten once it has stopped`,
  }[outcome];
  reply(res, status, { message });
}

/** Restate invokes a handler at `/invoke/<service>/<handler>`; a run's execution is `run`. */
const isRunInvocation = (url: string) => /^\/invoke\/[^/]+\/run(\?|$)/.test(url);

/** Starts the pool; resolves with its URL and a way to stop it. */
export async function startPool(options: PoolOptions): Promise<{ url: string; close(): Promise<void> }> {
  const members = new Members();
  const metrics = new ClusterMetrics("pool", {
    runs: () => ({ running: members.counts().running }),
    queueDepth: () => restateQueueDepth(options.admin),
    workers: () => members.counts().workers,
  });
  let registered = false;
  let advertised = "";
  const register = async () => {
    for (let attempt = 1; !registered; attempt++) {
      try {
        await registerDeployment(options.admin, advertised);
        registered = true;
        options.log(`registered ${advertised} with Restate at ${options.admin}`);
      } catch (error) {
        options.log(`cannot register with Restate yet (${(error as Error).message}); retrying`);
        await sleep(Math.min(5000, 250 * attempt));
      }
    }
  };

  const proxy = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const isRun = isRunInvocation(req.url ?? "");
    const member = members.pick(isRun);
    if (member === undefined) {
      // Restate retries with backoff: a worker may join or free a slot meanwhile.
      res.writeHead(503, { "retry-after": "1" });
      res.end("no live worker has a free slot");
      return;
    }
    if (isRun) member.inFlight++;
    let released = false;
    let callerGone = false;
    const release = () => {
      if (isRun && !released) member.inFlight--;
      released = true;
    };
    const target = new URL(req.url ?? "/", member.beat.url);
    const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on("end", release);
      answer.on("error", () => {
        release();
        res.destroy();
      });
    });
    upstream.on("error", (error) => {
      release();
      // Restate hung up (it stopped, or gave up on the call): the worker did nothing wrong.
      if (callerGone) return;
      member.broken = true;
      if (isRun) metrics.failovers.inc();
      options.log(`worker ${member.beat.id} at ${member.beat.url} failed a request: ${error.message}`);
      // Restate sees the broken answer and retries; the pool sends the retry elsewhere.
      if (!res.headersSent) {
        res.writeHead(502);
        res.end(`worker ${member.beat.id} failed: ${error.message}`);
      } else res.destroy();
    });
    member.open.add(upstream);
    if (isRun) runRequests.add(upstream);
    upstream.on("close", () => member.open.delete(upstream));
    res.on("close", () => {
      if (!res.writableFinished) callerGone = true;
      release();
      if (!upstream.writableFinished || !res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  const server = http.createServer(async (req, res) => {
    const url = req.url ?? "/";
    if (req.method === "POST" && url === "/pool/beat") {
      try {
        const beat = WorkerBeat.parse(JSON.parse(await readBody(req)));
        if (members.beat(beat)) {
          options.log(
            `worker ${beat.id} joined from ${beat.url} (${beat.slots} slot${beat.slots === 1 ? "" : "s"})`,
          );
          void register();
        }
        reply(res, 200, { ok: true });
      } catch (error) {
        reply(res, 400, { message: `bad beat: ${(error as Error).message}` });
      }
      return;
    }
    if (req.method === "GET" && url === "/pool/workers") {
      reply(res, 200, { workers: members.list() });
      return;
    }
    if (req.method === "POST" && url === "/pool/forget") {
      await forgetRoute(req, res, members, options.log);
      return;
    }
    if (isMetricsRequest(req)) {
      await metrics.serve(res);
      return;
    }
    proxy(req, res);
  });
  // A run's execution is one request that lasts the whole run.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const sweeper = setInterval(() => {
    for (const { id, runs } of members.sweep()) {
      metrics.failovers.inc(runs);
      options.log(`worker ${id} fell silent: its runs go back to Restate`);
    }
  }, 1000);
  sweeper.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  advertised = options.advertise ?? `http://${reachableHost(options.host)}:${port}`;
  return {
    url: advertised,
    close: () =>
      new Promise((resolve) => {
        clearInterval(sweeper);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
