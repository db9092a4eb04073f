import os from "node:os";

/**
 * Which authorities (`Host` header values, `Origin` hosts) name this UI. A web page on a rebound DNS
 * name reaches the server with its own name in `Host`, so only names the engineer can vouch for pass:
 * the bound address (or, bound to every interface, the machine's own addresses and host name), the
 * loopback names, and names given with `--allow-host` (a reverse proxy's).
 */
export interface ServedHosts {
  /** Names (lowercase; IPv6 without brackets, compressed) that must come with the served port. */
  readonly names: ReadonlySet<string>;
  /** Names accepted at any port or none: the `--allow-host` ones, which a proxy puts in front. */
  readonly proxied: ReadonlySet<string>;
  /** Bound to `0.0.0.0`/`::`: the interface addresses and host name are looked up again on a miss. */
  readonly everyInterface: boolean;
}

/** Host names a loopback-bound UI answers to. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1"]);

/** A `Host` value split into a name and a port (null when absent); null when it is not one. */
export interface Authority {
  name: string;
  port: number | null;
}

// RFC 3986 host: a bracketed IPv6 literal or a registered name / IPv4, then an optional port. No
// userinfo, no trailing dot, no zone id, no empty labels: anything else is not an address we serve.
const AUTHORITY =
  /^(?:\[([0-9a-f:.]+)\]|((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*))(?::(\d{1,5}))?$/i;

/** The compressed form of an IPv6 literal (`0:0:0:0:0:0:0:1` → `::1`), or null when it is not one. */
function canonicalIpv6(literal: string): string | null {
  try {
    const host = new URL(`http://[${literal}]/`).hostname;
    return host.slice(1, -1);
  } catch {
    return null;
  }
}

/** Parses a `Host` header value or URL host strictly; null when it is malformed. Never throws. */
export function parseAuthority(value: string): Authority | null {
  const match = AUTHORITY.exec(value);
  if (match === null) return null;
  const port = match[3] === undefined ? null : Number(match[3]);
  if (port !== null && (port < 1 || port > 65_535)) return null;
  if (match[1] !== undefined) {
    const name = canonicalIpv6(match[1]);
    return name === null ? null : { name, port };
  }
  return { name: (match[2] as string).toLowerCase(), port };
}

/** The machine's interface addresses and host name, as {@link ServedHosts.names} spells them. */
function interfaceNames(): string[] {
  const names = [os.hostname().toLowerCase()];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const entry of list ?? []) {
      // Link-local IPv6 needs a zone id, which a Host header cannot carry.
      if (entry.family === "IPv6" && entry.scopeid !== undefined && entry.scopeid !== 0) continue;
      names.push(entry.family === "IPv6" ? (canonicalIpv6(entry.address) ?? entry.address) : entry.address);
    }
  }
  return names;
}

/**
 * What a UI bound to `bindHost` serves: loopback names always, the bound address, and for `0.0.0.0`
 * or `::` every interface address and the host name; `allowHosts` are accepted at any port.
 */
export function servedHosts(bindHost: string, allowHosts: readonly string[] = []): ServedHosts {
  const everyInterface = bindHost === "0.0.0.0" || bindHost === "::";
  const bound = parseAuthority(bindHost.includes(":") ? `[${bindHost}]` : bindHost);
  const names = new Set(LOOPBACK_HOSTS);
  // The bound address itself, `0.0.0.0` included: the URL sssf ui prints names it, and an IP literal
  // cannot be rebound.
  if (bound !== null) names.add(bound.name);
  if (everyInterface) for (const name of interfaceNames()) names.add(name);
  const proxied = new Set(allowHosts.map((host) => parseAuthority(host)?.name ?? host.toLowerCase()));
  return { names, proxied, everyInterface };
}

/**
 * True when `value` (a `Host` header or an `Origin`'s host) names this UI: a served name at
 * `localPort` (no port means 80), or an `--allow-host` name at any port. `localPort` null (an
 * in-process request without a socket) checks the name only.
 */
export function isServed(served: ServedHosts, value: string, localPort: number | null): boolean {
  const authority = parseAuthority(value);
  if (authority === null) return false;
  if (served.proxied.has(authority.name)) return true;
  if (localPort !== null && (authority.port ?? 80) !== localPort) return false;
  if (served.names.has(authority.name)) return true;
  // Interfaces come and go (DHCP, VPN): look again before refusing.
  return served.everyInterface && interfaceNames().includes(authority.name);
}
