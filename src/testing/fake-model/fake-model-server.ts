/**
 * `createFakeModelServer`: a scripted model endpoint on 127.0.0.1 speaking the four wire APIs coding
 * agents use, doubling as the egress trap behind HTTPS_PROXY/HTTP_PROXY, with `/__` control endpoints
 * for use from another process. Plain `node:http`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ControlTarget, handleControl } from "./control-endpoints.js";
import { sendJson } from "./http-io.js";
import { isLoopbackHost, ProxyTrap } from "./proxy-trap.js";
import { RequestLog } from "./request-log.js";
import { ScriptState } from "./script-state.js";
import { serveModelRequest } from "./serve-model-request.js";
import type { CreateFakeModelServerOptions, FakeModelServer } from "./types.js";

const ABSOLUTE_URI = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Starts the server and resolves once it listens. Rejects on an invalid script or port, a port in
 * use, or a log file that cannot be created. Requests never make it throw: failures are answers.
 *
 * @example
 * const fake = await createFakeModelServer({ script: { steps: [{ match: { text: "TURN-1" }, reply: "hi" }] } });
 * // ANTHROPIC_BASE_URL=fake.url, OPENAI base URL `${fake.url}/v1`, HTTPS_PROXY=fake.url …
 * await fake.close();
 */
export async function createFakeModelServer(
  options: CreateFakeModelServerOptions = {},
): Promise<FakeModelServer> {
  const state = new ScriptState(options.script);
  const log = new RequestLog(options.logFile);
  const trap = new ProxyTrap(log);
  let hangAll = false;
  let seq = 0;
  let closing: Promise<void> | undefined;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on("connect", (req, socket, head) => trap.onConnect(req, socket, head));

  const fake: FakeModelServer = {
    url: "",
    port: 0,
    requests: () => log.requests(),
    egress: () => log.egress(),
    setScript: (script) => state.set(script),
    enqueue: (...steps) => state.enqueue(steps),
    reset: () => {
      log.clear();
      state.rewind();
      hangAll = false;
    },
    hang: (on) => {
      hangAll = on;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        trap.closeAll();
      }).then(markClosed);
      return closing;
    },
    closed,
  };
  const control: ControlTarget = {
    ...fake,
    stepCount: () => state.size,
    shutdown: () => void fake.close(),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target = req.url ?? "/";
    if (ABSOLUTE_URI.test(target)) {
      // A request sent to us as a proxy: refuse anything leaving the machine, serve what is for us.
      const url = URL.canParse(target) ? new URL(target) : undefined;
      if (!url || !isLoopbackHost(url.hostname)) return trap.refuse(req, res, target);
      if (Number(url.port || 80) !== fake.port) {
        req.resume();
        return sendJson(res, 502, {
          error: { message: `fake model proxy only serves itself, not ${url.host}` },
        });
      }
      target = `${url.pathname}${url.search}`;
    }
    if (target.startsWith("/__")) return handleControl(req, res, target.split("?")[0] ?? target, control);
    return serveModelRequest(req, res, target, { state, log, hangAll: () => hangAll, nextSeq: () => ++seq });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}
