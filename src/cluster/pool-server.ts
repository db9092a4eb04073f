/**
 * `sssf pool` (docs/cluster.md): the one address Restate calls for the `sssfRun` workflow. A Restate
 * deployment is one URI, so workers on many hosts join the pool, and the pool hands every request to a
 * live worker: a run's execution to the one with the most free slots, anything else to any live one.
 * When a worker dies mid-run its connection breaks, Restate retries, and the pool picks another.
 */

import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type PoolWorker, WorkerBeat } from "./cluster-wire.js";
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
   * closing its connections), so Restate retries their runs elsewhere; forgets workers silent for a
   * minute. Returns the workers it cut.
   */
  sweep(): string[] {
    const cut: string[] = [];
    for (const [id, member] of this.byId) {
      const silent = Date.now() - member.lastSeen;
      if (silent > WORKER_SILENCE_MS && member.open.size > 0) {
        for (const request of member.open) request.destroy(new Error(`worker ${id} is silent`));
        member.open.clear();
        cut.push(id);
      }
      if (silent > 60_000) this.byId.delete(id);
    }
    return cut;
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

/** Restate invokes a handler at `/invoke/<service>/<handler>`; a run's execution is `run`. */
const isRunInvocation = (url: string) => /^\/invoke\/[^/]+\/run(\?|$)/.test(url);

/** Starts the pool; resolves with its URL and a way to stop it. */
export async function startPool(options: PoolOptions): Promise<{ url: string; close(): Promise<void> }> {
  const members = new Members();
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
      options.log(`worker ${member.beat.id} at ${member.beat.url} failed a request: ${error.message}`);
      // Restate sees the broken answer and retries; the pool sends the retry elsewhere.
      if (!res.headersSent) {
        res.writeHead(502);
        res.end(`worker ${member.beat.id} failed: ${error.message}`);
      } else res.destroy();
    });
    member.open.add(upstream);
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
    proxy(req, res);
  });
  // A run's execution is one request that lasts the whole run.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const sweeper = setInterval(() => {
    for (const id of members.sweep()) options.log(`worker ${id} fell silent: its runs go back to Restate`);
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
