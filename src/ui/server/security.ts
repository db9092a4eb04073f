import type { Context, MiddlewareHandler } from "hono";

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

/** Sets the security headers on every response. No CORS header is ever sent. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
  };
}

/** The host name of a `Host` header or URL host (`[::1]:4477` → `::1`), lowercased. */
export function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(1, trimmed.indexOf("]"));
  const colon = trimmed.lastIndexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

function requestHost(c: Context): string {
  return c.req.header("host") ?? new URL(c.req.url).host;
}

/**
 * Refuses (403) requests whose `Host` is not one of `allowedHosts`: a web page on a rebound DNS name
 * pointing at 127.0.0.1 then cannot read the trace. `null` allows any host (an explicit `--host`
 * bound to every interface, where names cannot be known in advance).
 */
export function hostGuard(allowedHosts: ReadonlySet<string> | null): MiddlewareHandler {
  return async (c, next) => {
    if (allowedHosts !== null && !allowedHosts.has(hostName(requestHost(c)))) {
      return c.json({ error: "unknown Host header" }, 403);
    }
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
