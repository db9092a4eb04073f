import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { SssfError } from "../../errors/sssf-error.js";
import { reapDeadRuns } from "../../session/reaper.js";
import type { TraceStore } from "../../trace/store.js";
import { createUiApp, type UiAppOptions } from "./app.js";
import { securityHeaderList } from "./guard/security.js";
import { LOOPBACK_HOSTS, parseAuthority, servedHosts } from "./guard/served-hosts.js";

/** Port `sssf ui` tries first. */
export const DEFAULT_UI_PORT = 4477;
/** How many following ports are tried when the default one is taken. */
const PORT_TRIES = 20;

/** Options of {@link startUiServer}. */
export interface StartUiServerOptions extends Omit<UiAppOptions, "served"> {
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Further names requests may give in `Host` at any port: a reverse proxy's (`--allow-host`). */
  allowHosts?: readonly string[];
  /** Port; taken exactly when given (0 = any free port), else 4477 or the next free one. */
  port?: number;
  /**
   * Close runs whose sssf died as `interrupted` (the reaper, docs/lifecycle.md): once before serving,
   * then every REAP_EVERY_MS while the UI is open (default false).
   */
  reap?: boolean;
}

/** How often an open UI looks for runs whose sssf died. */
const REAP_EVERY_MS = 5000;

/** Runs the reaper now and then every REAP_EVERY_MS (never two at once); returns the stop function. */
async function reapWhileOpen(options: StartUiServerOptions, db: () => TraceStore): Promise<() => void> {
  const paths = { dbPath: options.dbPath, sessionsDir: options.sessionsDir, by: "sssf ui" };
  let busy = false;
  const reap = async () => {
    if (busy) return;
    busy = true;
    try {
      await reapDeadRuns(db(), paths);
    } catch {
      // A busy or read-only database: the next round tries again.
    } finally {
      busy = false;
    }
  };
  await reap();
  const timer = setInterval(() => void reap(), REAP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** A listening UI. `close()` ends live streams, connections and the database; idempotent. */
export interface RunningUiServer {
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

/** True for 127.0.0.0/8, ::1 and localhost. Never throws. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(host);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off("listening", onListening);
      reject(error);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

function plainHeaders(): [string, string][] {
  return [["content-type", "text/plain; charset=utf-8"], ...securityHeaderList()];
}

function plainAnswer(status: number, text: string): Response {
  return new Response(`${text}\n`, { status, headers: plainHeaders() });
}

/**
 * The Node request listener: a request whose `Host` is missing or not an authority at all never
 * becomes a URL, so the app's `requestGuard` cannot see it; it is refused here like a foreign one
 * (403). Whatever else `@hono/node-server` cannot read (a backslash in the path) is a 400 saying why.
 */
function uiListener(fetch: (request: Request, env: unknown) => Response | Promise<Response>) {
  const listener = getRequestListener(fetch, {
    errorHandler: (error) => {
      const message = error instanceof Error ? error.message : String(error);
      // A Host spelled so that its URL differs (`[0:0::1]`) is as foreign as any other.
      if (/host/i.test(message)) return plainAnswer(403, "refused: malformed Host header");
      return plainAnswer(400, `bad request: ${message}`);
    },
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host;
    if (host === undefined || parseAuthority(host) === null) {
      res.writeHead(403, Object.fromEntries(plainHeaders()));
      res.end("refused: missing or malformed Host header\n");
      return;
    }
    void listener(req, res);
  };
}

/**
 * Starts the UI server. Contract: throws SssfError("usage") when the database is missing, the port
 * is taken (an explicit one, or all of 4477 and the next 20) or cannot be bound on `host`.
 */
export async function startUiServer(options: StartUiServerOptions): Promise<RunningUiServer> {
  const host = options.host ?? "127.0.0.1";
  const ui = await createUiApp({ ...options, served: servedHosts(host, options.allowHosts) });
  const stopReaping = options.reap === true ? await reapWhileOpen(options, () => ui.hub.db) : () => {};
  // Node's own answer to a request without Host is an empty 400: uiListener says why instead.
  const server = createServer({ requireHostHeader: false }, uiListener(ui.app.fetch));
  const first = options.port ?? DEFAULT_UI_PORT;
  const tries = options.port === undefined ? PORT_TRIES + 1 : 1;
  let port = -1;
  for (let i = 0; i < tries && port < 0; i++) {
    try {
      port = await listen(server, first + i, host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE" && i + 1 < tries) continue;
      stopReaping();
      await ui.close();
      const what = code === "EADDRINUSE" ? `port ${first + i} is in use` : (error as Error).message;
      throw new SssfError("usage", `cannot serve the UI on ${host}: ${what} (pass --port N)`);
    }
  }
  const shown = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${port}/`,
    host,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        stopReaping();
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => ui.close());
      return closing;
    },
  };
}
