/**
 * The one way out of a box whose `sandbox.network` lists hosts: the box has no network of its own
 * (bubblewrap `--unshare-net`), and its only door is a proxy sssf runs on a Unix socket bound into the
 * box. It tunnels `CONNECT host:port` and forwards plain `http://` requests to the listed hosts alone,
 * refusing every other with 403 and telling sssf which. Inside the box a small forwarder (see
 * `boxForwarderArgv`) listens on the box's own loopback and relays to the socket, and the agent gets
 * `HTTPS_PROXY`/`HTTP_PROXY` pointing at it: a CLI that ignores those variables reaches nothing.
 */

import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** True when `host` (with `port`) matches an entry: `example.com`, `*.example.com`, `host:443`, `127.0.0.1:8080`. */
export function hostAllowed(entries: readonly string[], host: string, port: number): boolean {
  const name = host.replace(/^\[|\]$/g, "").toLowerCase();
  return entries.some((raw) => {
    const entry = raw.toLowerCase();
    // `[v6]:port`, `[v6]`, `host:port`, or a bare host (a bare v6 address has several colons).
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const single = bracketed === null ? /^([^:]+):(\d+)$/.exec(entry) : null;
    const pattern = bracketed?.[1] ?? single?.[1] ?? entry;
    const wanted = bracketed?.[2] ?? single?.[2];
    if (wanted !== undefined && Number(wanted) !== port) return false;
    if (pattern.startsWith("*.")) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return name === pattern;
  });
}

export interface EgressProxy {
  /** The Unix socket the box's forwarder connects to. */
  socketPath: string;
  /** The folder holding it (bound into the box). */
  folder: string;
  close(): Promise<void>;
}

/** Splits `host:port` (and `[v6]:port`); null when it is not one. */
function hostPort(target: string, defaultPort: number): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(target);
  if (!match?.[1]) return null;
  return { host: match[1], port: match[2] === undefined ? defaultPort : Number(match[2]) };
}

/** Starts a proxy for `hosts`; `onRefused` hears each refused `host:port`. */
export async function startEgressProxy(
  hosts: readonly string[],
  onRefused: (target: string) => void,
): Promise<EgressProxy> {
  const folder = mkdtempSync(path.join(tmpdir(), "sssf-egress-"));
  const socketPath = path.join(folder, "proxy.sock");
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    let url: URL;
    try {
      url = new URL(request.url ?? "");
    } catch {
      response.writeHead(400).end("sssf's sandbox proxy forwards absolute http:// URLs only\n");
      return;
    }
    const port = url.port === "" ? 80 : Number(url.port);
    if (url.protocol !== "http:" || !hostAllowed(hosts, url.hostname, port)) {
      onRefused(`${url.hostname}:${port}`);
      response.writeHead(403).end(`${url.hostname} is not in sandbox.network\n`);
      return;
    }
    const upstream = http.request(
      {
        host: url.hostname,
        port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: request.headers,
      },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  server.on("connect", (request, client: net.Socket, head: Buffer) => {
    const target = hostPort(request.url ?? "", 443);
    if (target === null || !hostAllowed(hosts, target.host, target.port)) {
      onRefused(request.url ?? "?");
      client.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const upstream = net.connect(target.port, target.host.replace(/^\[|\]$/g, ""), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    folder,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          rmSync(folder, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

// Runs inside the box: listens on the box's loopback, relays each connection to the proxy's socket,
// and starts the agent with the proxy variables; it ends as the agent ends, with its status.
const FORWARDER = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [socketPath, ...command] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(0, "127.0.0.1", () => {
  const url = "http://127.0.0.1:" + server.address().port;
  const env = { ...process.env, NODE_USE_ENV_PROXY: "1" };
  for (const name of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]) env[name] = env[name.toLowerCase()] = url;
  env.NO_PROXY = env.no_proxy = "";
  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => { process.stderr.write(String(error) + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + (require("node:os").constants.signals[signal] ?? 0) : 1)));
});
`;

/** The argv that runs `command` behind the box's forwarder (`node` is the running Node). */
export function boxForwarderArgv(socketPath: string, command: readonly string[]): string[] {
  return [process.execPath, "-e", FORWARDER, socketPath, ...command];
}
