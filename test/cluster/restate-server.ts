import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";
import { sleep } from "../helpers/wait.js";

/** The restate-server binary of the npm package (devDependency). */
const RESTATE_SERVER = path.join(
  repoRoot,
  `node_modules/@restatedev/restate-server-${process.platform}-${process.arch === "x64" ? "x64" : process.arch}/bin/restate-server`,
);

/** Never phone home from a test. */
export const QUIET_ENV = { RESTATE_DISABLE_TELEMETRY: "true", DO_NOT_TRACK: "1", SCARF_ANALYTICS: "false" };

/** A free port on 127.0.0.1 (closed again at once; the caller binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  ms = 120_000,
  proc?: Proc | readonly Proc[],
): Promise<void> {
  const procs = proc === undefined ? [] : Array.isArray(proc) ? proc : [proc as Proc];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    // A process that died will never answer: say so now, with what it printed, not after the timeout.
    const dead = procs.find((p) => !p.alive);
    if (dead !== undefined) throw new ExitedEarly(what, dead);
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The process a test waited for exited before it was ready. */
export class ExitedEarly extends Error {
  constructor(what: string, proc: Proc) {
    const how = proc.child.signalCode ?? `code ${proc.child.exitCode}`;
    super(`${what}: ${proc.name} exited (${how}) before it was ready; it printed:\n${proc.out.slice(-4000)}`);
  }
}

/** A child process whose output is kept for when a test fails. */
export class Proc {
  out = "";
  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => {
      this.out += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.out += chunk.toString();
    });
  }
  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
  kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (!this.alive) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.kill(signal);
    });
  }
}

/** Restate's server on free loopback ports, in its own folder (kept across a restart). */
export class RestateServer {
  proc: Proc | null = null;
  baseDir = mkdtempSync(path.join(tmpdir(), "sssf-restate-"));
  ingressPort = 0;
  adminPort = 0;
  fabricPort = 0;

  get ingress(): string {
    return `http://127.0.0.1:${this.ingressPort}`;
  }
  get admin(): string {
    return `http://127.0.0.1:${this.adminPort}`;
  }

  /**
   * Starts the server and waits until its admin API and ingress answer. A first start takes fresh
   * ports (and a fresh folder) again when the server exits early: another test may bind a port between
   * `freePort` closing it and the server binding it. A restart keeps the ports the workers know.
   */
  async start(): Promise<void> {
    const first = this.ingressPort === 0;
    for (let attempt = 1; ; attempt++) {
      if (first) {
        this.ingressPort = await freePort();
        this.adminPort = await freePort();
        this.fabricPort = await freePort();
      }
      const proc = this.#spawn();
      try {
        await until("restate-server", async () => (await fetch(`${this.admin}/health`)).ok, 120_000, proc);
        await until(
          "restate ingress",
          async () => (await fetch(`${this.ingress}/restate/health`)).ok,
          120_000,
          proc,
        );
        return;
      } catch (error) {
        if (!first || !(error instanceof ExitedEarly) || attempt === 3) throw error;
        rmSync(this.baseDir, { recursive: true, force: true });
        this.baseDir = mkdtempSync(path.join(tmpdir(), "sssf-restate-"));
      }
    }
  }

  #spawn(): Proc {
    // restate-server leaves an empty invoker-* folder in TMPDIR per start: keep them in its own folder.
    const scratch = path.join(this.baseDir, "tmp");
    mkdirSync(scratch, { recursive: true });
    const child = spawn(
      RESTATE_SERVER,
      ["--no-logo", "--listen-mode", "tcp", "--base-dir", this.baseDir, "--node-name", "n1"],
      {
        env: {
          ...process.env,
          ...QUIET_ENV,
          RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${this.ingressPort}`,
          RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${this.adminPort}`,
          RESTATE_BIND_ADDRESS: `127.0.0.1:${this.fabricPort}`,
          RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${this.fabricPort}`,
          RESTATE_LOG_FILTER: "warn",
          TMPDIR: scratch,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    this.proc = new Proc("restate-server", child);
    return this.proc;
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    await this.proc?.kill(signal);
  }

  /**
   * Kills every invocation that has not completed, so the next test's pool is never handed a run (or
   * an `answer` call) of an earlier test whose pool and workers are gone. Completed workflows stay:
   * each test keys its runs by adw_ids of its own.
   */
  async killUnfinished(): Promise<void> {
    if (this.proc?.alive !== true) return;
    const reply = await fetch(`${this.admin}/query`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: "SELECT id FROM sys_invocation WHERE status != 'completed'" }),
    });
    if (!reply.ok) throw new Error(`restate /query: ${reply.status} ${await reply.text()}`);
    const { rows } = (await reply.json()) as { rows: { id: string }[] };
    for (const { id } of rows) {
      const killed = await fetch(`${this.admin}/invocations/${id}/kill`, { method: "PATCH" });
      // Gone meanwhile (it completed or was killed already): nothing left to stop.
      if (!killed.ok && killed.status !== 404 && killed.status !== 409)
        throw new Error(`restate kill ${id}: ${killed.status} ${await killed.text()}`);
    }
  }

  cleanup(): void {
    rmSync(this.baseDir, { recursive: true, force: true });
  }
}

/**
 * One restate-server for every test of the calling file (started in beforeAll, stopped in afterAll):
 * starting one per test cost seconds each. Pass it to each {@link ClusterWorld}; a world's cleanup
 * kills the invocations its test left, and each test keys its runs by adw_ids of its own.
 */
export function sharedRestate(): RestateServer {
  const server = new RestateServer();
  beforeAll(() => server.start(), 120_000);
  afterAll(async () => {
    await server.stop("SIGKILL");
    server.cleanup();
  });
  return server;
}
