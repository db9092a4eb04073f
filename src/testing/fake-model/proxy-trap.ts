/**
 * The egress trap: the fake doubles as the HTTPS_PROXY/HTTP_PROXY of the CLI under test. A CONNECT or
 * absolute-URI request for a non-loopback host is refused with 403 and recorded, which turns "did the
 * CLI phone home?" into an assertion. Loopback CONNECTs are tunnelled, so a client that ignores
 * NO_PROXY still reaches local servers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { RequestLog } from "./request-log.js";

/** True for localhost, 127.0.0.0/8 and ::1 (bracketed or not). Never throws. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** `example.com:443` or `[::1]:8080` → host and port (0 when absent or invalid). Never throws. */
export function splitAuthority(authority: string): { host: string; port: number } {
  const found = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(authority);
  return { host: found?.[1] ?? authority, port: Number(found?.[2] ?? 0) };
}

const REFUSAL = "fake model server: egress refused (this proxy only lets loopback traffic through)\n";

/** Refuses and records proxied traffic; tunnels loopback CONNECTs. */
export class ProxyTrap {
  private readonly tunnels = new Set<Duplex>();

  constructor(private readonly log: RequestLog) {}

  /** Handles the server's `connect` event. Never throws. */
  onConnect(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const target = req.url ?? "";
    const { host, port } = splitAuthority(target);
    socket.on("error", () => socket.destroy());
    if (isLoopbackHost(host) && port > 0) {
      this.tunnel(socket, host.replace(/^\[(.*)\]$/, "$1"), port, head);
      return;
    }
    this.log.addEgress({ kind: "egress", time: new Date().toISOString(), method: "CONNECT", target });
    socket.end(
      `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(REFUSAL)}\r\nconnection: close\r\n\r\n${REFUSAL}`,
    );
  }

  /** Refuses an absolute-URI request for a non-loopback host. Never throws. */
  refuse(req: IncomingMessage, res: ServerResponse, target: string): void {
    this.log.addEgress({
      kind: "egress",
      time: new Date().toISOString(),
      method: req.method ?? "GET",
      target,
    });
    req.resume();
    res.writeHead(403, { "content-type": "text/plain", connection: "close" });
    res.end(REFUSAL);
  }

  /** Drops every open tunnel (on server close). */
  closeAll(): void {
    for (const socket of this.tunnels) socket.destroy();
    this.tunnels.clear();
  }

  private tunnel(client: Duplex, host: string, port: number, head: Buffer): void {
    let connected = false;
    const upstream: Socket = connect(port, host, () => {
      connected = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.tunnels.add(client).add(upstream);
    const forget = () => {
      this.tunnels.delete(client);
      this.tunnels.delete(upstream);
    };
    upstream.on("error", () => {
      // Before the tunnel is up the client still expects an HTTP answer.
      if (connected) client.destroy();
      else client.end("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
    upstream.on("close", () => {
      if (connected) client.destroy();
      forget();
    });
    client.on("close", () => {
      upstream.destroy();
      forget();
    });
  }
}
