import type { Context, MiddlewareHandler } from "hono";
import { isServed, parseAuthority, type ServedHosts } from "./served-hosts.js";

/**
 * The UI's Content-Security-Policy: scripts, styles and connections from the server itself only, no
 * inline script or style, no plugins, no framing, and Trusted Types required so that a string can never
 * reach an HTML sink such as `innerHTML`, even by mistake.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

/** The security headers every response carries, as name/value pairs. No CORS header is ever sent. */
export function securityHeaderList(): [string, string][] {
  return [
    ["Content-Security-Policy", CONTENT_SECURITY_POLICY],
    ["X-Content-Type-Options", "nosniff"],
    ["Referrer-Policy", "no-referrer"],
    ["X-Frame-Options", "DENY"],
    ["Cross-Origin-Opener-Policy", "same-origin"],
    ["Cross-Origin-Resource-Policy", "same-origin"],
  ];
}

/** Sets {@link securityHeaderList} on every response. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of securityHeaderList()) c.header(name, value);
  };
}

/** The Node request behind a Hono context, when it came through a socket (`@hono/node-server`). */
interface Incoming {
  rawHeaders?: unknown;
  socket?: { localPort?: number };
}

function incomingOf(c: Context): Incoming | undefined {
  return (c.env as { incoming?: Incoming } | undefined)?.incoming;
}

/** Every value of header `name` as sent (Node keeps only the first `Host`; rawHeaders keeps all). */
function rawValues(c: Context, name: string): string[] {
  const raw = incomingOf(c)?.rawHeaders;
  if (!Array.isArray(raw)) {
    const value = c.req.header(name);
    return value === undefined ? [] : [value];
  }
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === name) values.push(String(raw[i + 1]));
  }
  return values;
}

function requestHost(c: Context): string {
  return c.req.header("host") ?? new URL(c.req.url).host;
}

/** Methods that change nothing; every other one is a write and must be same-origin JSON. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/**
 * Why the request must be refused, or null: its `Host` (exactly one; and the URL's host, which an
 * absolute request target sets) must name this UI (`isServed`), an `Origin` (on any method) must be
 * this UI's own, and a write must pass {@link crossSiteRefusal}.
 */
export function requestRefusal(c: Context, served: ServedHosts): string | null {
  const localPort = incomingOf(c)?.socket?.localPort ?? null;
  const hosts = rawValues(c, "host");
  if (hosts.length > 1) return "more than one Host header";
  const host = hosts[0] ?? new URL(c.req.url).host;
  if (host === "") return "missing Host header";
  const unserved = (value: string) => `Host "${value.slice(0, 200)}" is not an address this UI serves`;
  if (!isServed(served, host, localPort))
    return `${unserved(host)} (a proxy's name needs sssf ui --allow-host)`;
  // An absolute request target (`GET http://name/…`) names the host Hono reads the URL from.
  const urlHost = new URL(c.req.url).host;
  if (urlHost !== host && !isServed(served, urlHost, localPort))
    return `${unserved(urlHost)} (request target)`;
  const origins = rawValues(c, "origin");
  if (origins.length > 1) return "more than one Origin header";
  if (origins[0] !== undefined && !sameOrigin(origins[0], host)) {
    return `cross-origin request from ${origins[0].slice(0, 200)}`;
  }
  return SAFE_METHODS.has(c.req.method) ? null : crossSiteRefusal(c);
}

/** True when `origin` is `http(s)://` + the authority in `host` (case-insensitive, default ports alike). */
function sameOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.toLowerCase())
    return false;
  const a = parseAuthority(url.host);
  const b = parseAuthority(host);
  // A proxy may write the scheme's default port out in Host (`:443`); the Origin never does.
  const defaultPort = url.protocol === "https:" ? 443 : 80;
  return a !== null && b !== null && a.name === b.name && (a.port ?? defaultPort) === (b.port ?? defaultPort);
}

/** A refusal as the client reads it: `{"error": …}` under `/api`, plain text elsewhere. */
function refuse(c: Context, message: string): Response {
  if (c.req.path.startsWith("/api/") || c.req.path === "/api") return c.json({ error: message }, 403);
  return c.text(`refused: ${message}\n`, 403);
}

/**
 * The one gate every request passes (API, live stream, static files, redirects): refuses with 403
 * what {@link requestRefusal} names, so a web page on a rebound DNS name or another origin cannot
 * read the trace or write, whatever address the UI is bound to.
 */
export function requestGuard(served: ServedHosts): MiddlewareHandler {
  return async (c, next) => {
    const refusal = requestRefusal(c, served);
    if (refusal !== null) return refuse(c, refusal);
    await next();
  };
}

/**
 * Why a state-changing request must be refused as cross-site, or null when it may proceed: the body
 * must be JSON (a cross-site form cannot send that without a preflight, which is never granted),
 * `Sec-Fetch-Site` when present must be `same-origin`, and `Origin` when present must be this server.
 */
export function crossSiteRefusal(c: Context): string | null {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return "expected Content-Type: application/json";
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin") return `cross-site request (Sec-Fetch-Site: ${site})`;
  const origin = c.req.header("origin");
  if (origin !== undefined) {
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return "unreadable Origin header";
    }
    if (originHost !== requestHost(c).toLowerCase()) return `cross-origin request from ${origin}`;
  }
  return null;
}
