import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningUiServer, startUiServer } from "../../src/ui/server/start-server.js";
import { at, sessionRow } from "../trace/trace-fixtures.js";
import { BASE } from "./feature-fixtures.js";
import { type RawResponse, rawRequest } from "./raw-http.js";
import { TraceWorld } from "./ui-fixtures.js";

const ADW = "guard001";
const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];

/** One class of route: what a served request gets, and how it is sent. */
interface RouteClass {
  name: string;
  method: "GET" | "HEAD" | "POST";
  path: string;
  served: number;
}

const ROUTES: RouteClass[] = [
  { name: "JSON list", method: "GET", path: "/api/sessions", served: 200 },
  { name: "a session", method: "GET", path: `/api/sessions/${ADW}`, served: 200 },
  { name: "a sub-resource", method: "GET", path: `/api/sessions/${ADW}/approvals`, served: 200 },
  { name: "live stream", method: "GET", path: `/api/live?adw=${ADW}`, served: 200 },
  { name: "static file", method: "GET", path: "/", served: 200 },
  { name: "static HEAD", method: "HEAD", path: "/", served: 200 },
  { name: "redirect", method: "GET", path: `/compare/${ADW}/${ADW}`, served: 302 },
  // A served write clears the flag; a refused one asks to set it (checked after every request).
  { name: "write", method: "POST", path: `/api/sessions/${ADW}/archive`, served: 200 },
];

/** A Host (or none, or several) and whether a UI on that binding must serve it. */
interface HostCase {
  hosts: readonly string[];
  served: boolean;
}

/** An Origin (or none, or two) and whether it is this UI's own. */
interface OriginCase {
  origins: readonly string[];
  served: boolean;
}

/** Non-internal interface addresses and the host name, as a Host header spells them. */
function machineNames(port: number): string[] {
  const names = /^[a-z0-9.-]+$/i.test(os.hostname()) ? [`${os.hostname()}:${port}`] : [];
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const e of entries ?? []) {
      if (e.internal || (e.family === "IPv6" && e.scopeid !== 0)) continue;
      names.push(e.family === "IPv6" ? `[${e.address}]:${port}` : `${e.address}:${port}`);
    }
  }
  return names;
}

function hostCases(bind: string, port: number): fc.Arbitrary<HostCase> {
  const loopback = [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `[::1]:${port}`,
    `LOCALHOST:${port}`,
    `LocalHost:${port}`,
  ];
  const machine = [`0.0.0.0:${port}`, ...machineNames(port)];
  const good = bind === "0.0.0.0" ? [...loopback, ...machine] : loopback;
  const goodHost = fc.constantFrom(...good);
  const otherPort = fc.integer({ min: 1, max: 65_535 }).filter((p) => p !== port);
  const bad: fc.Arbitrary<string>[] = [
    fc.domain().map((d) => `${d}:${port}`),
    fc.domain(),
    fc.tuple(fc.constantFrom("127.0.0.1", "localhost", "[::1]"), otherPort).map(([n, p]) => `${n}:${p}`),
    fc.constantFrom(
      "127.0.0.1",
      "localhost",
      `localhost.:${port}`,
      `127.0.0.1.:${port}`,
      `user@127.0.0.1:${port}`,
      `127.0.0.1:${port}@evil.example`,
      `[::2]:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `[0:0:0:0:0:0:0:1]:${port}`,
      `::1:${port}`,
      `[::1%25lo]:${port}`,
      `[fe80::1]:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1:${port} evil.example`,
      `127.0.0.1:${port}:${port}`,
      `127.0.0.1:${port + 100_000}`,
      "",
    ),
    ...(bind === "0.0.0.0" ? [] : [fc.constantFrom(...machine)]),
  ];
  return fc.oneof(
    { weight: 3, arbitrary: goodHost.map((h) => ({ hosts: [h], served: true })) },
    { weight: 4, arbitrary: fc.oneof(...bad).map((h) => ({ hosts: [h], served: false })) },
    fc.constant<HostCase>({ hosts: [], served: false }),
    fc.tuple(goodHost, fc.oneof(goodHost, ...bad)).map(([a, b]) => ({ hosts: [a, b], served: false })),
  );
}

/** An Origin for a request whose Host is `host`: none or its own are fine, anything else is refused. */
function originCases(host: string, port: number): fc.Arbitrary<OriginCase> {
  const own = `http://${host}`;
  return fc.oneof(
    fc.constant<OriginCase>({ origins: [], served: true }),
    fc.constant<OriginCase>({ origins: [own], served: true }),
    fc
      .oneof(
        fc.webUrl().map((u) => new URL(u).origin),
        fc.constantFrom(
          "null",
          `${own}/`,
          `http://evil.example:${port}`,
          `http://127.0.0.1:${port + 1}`,
          `http://localhost.:${port}`,
          `ftp://${host}`,
          "file://",
          host,
        ),
      )
      .filter((o) => o.toLowerCase() !== own.toLowerCase())
      .map((o) => ({ origins: [o], served: false })),
    fc.constant<OriginCase>({ origins: [own, own], served: false }),
  );
}

let world: TraceWorld;
beforeAll(async () => {
  world = await TraceWorld.open();
  world.write({ table: "sessions", row: sessionRow(ADW, at(BASE, 0)) });
  const client = path.join(world.dir, "client");
  mkdirSync(client);
  writeFileSync(path.join(client, "index.html"), "<!doctype html><title>sssf</title>");
});
afterAll(() => world.cleanup());

function archived(): number {
  const row = world.db.prepare("SELECT archived FROM sessions WHERE adw_id = ?").get(ADW) as {
    archived: number;
  };
  return row.archived;
}

/** Sends `route`; a write asks to set the flag when it must be refused, so a leak shows in {@link archived}. */
function send(
  server: RunningUiServer,
  route: RouteClass,
  headers: [string, string][],
  served: boolean,
): Promise<RawResponse> {
  const write = route.method === "POST";
  return rawRequest({
    port: server.port,
    method: route.method,
    path: route.path,
    headers: write ? [...headers, JSON_TYPE] : headers,
    ...(write ? { body: JSON.stringify({ archived: !served }) } : {}),
  });
}

function expectRefused(response: RawResponse, route: RouteClass, what: string): void {
  expect(response.status, what).toBe(403);
  if (route.method === "HEAD") return;
  expect(response.body.trim(), what).not.toBe("");
  if (route.path.startsWith("/api/") && response.type.startsWith("application/json")) {
    expect((JSON.parse(response.body) as { error: string }).error, what).toMatch(/Host|Origin|cross/);
  }
}

describe.each(["127.0.0.1", "0.0.0.0"])("a UI bound to %s, requested over 127.0.0.1", (bind) => {
  let server: RunningUiServer;
  beforeAll(async () => {
    server = await startUiServer({
      dbPath: world.dbPath,
      sessionsDir: world.sessionsDir,
      clientDir: path.join(world.dir, "client"),
      host: bind,
      port: 0,
    });
  });
  afterAll(() => server.close());

  it("serves every route class only for a Host naming this UI at its port (fixed seed)", async () => {
    await fc.assert(
      fc.asyncProperty(hostCases(bind, server.port), fc.constantFrom(...ROUTES), async (host, route) => {
        const what = `${route.name} ${route.method} ${route.path} Host ${JSON.stringify(host.hosts)}`;
        const response = await send(
          server,
          route,
          host.hosts.map((h) => ["Host", h]),
          host.served,
        );
        if (host.served) expect(response.status, what).toBe(route.served);
        else expectRefused(response, route, what);
        expect(archived(), what).toBe(0);
      }),
      { seed: 0x5e_cafe, numRuns: 300 },
    );
  });

  it("refuses an Origin that is not the served one on every method, writes included (fixed seed)", async () => {
    const good = fc.constantFrom(
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      `[::1]:${server.port}`,
    );
    const cases = good.chain((host) => originCases(host, server.port).map((origin) => ({ host, ...origin })));
    await fc.assert(
      fc.asyncProperty(cases, fc.constantFrom(...ROUTES), async (c, route) => {
        const what = `${route.name} Host ${c.host} Origin ${JSON.stringify(c.origins)}`;
        const headers: [string, string][] = [
          ["Host", c.host],
          ...c.origins.map((o): [string, string] => ["Origin", o]),
        ];
        const response = await send(server, route, headers, c.served);
        if (c.served) expect(response.status, what).toBe(route.served);
        else expectRefused(response, route, what);
        expect(archived(), what).toBe(0);
      }),
      { seed: 0x0_1a1e, numRuns: 200 },
    );
  });

  it("keeps every write same-origin JSON: a form, text or a cross-site fetch is refused", async () => {
    const host: [string, string] = ["Host", `127.0.0.1:${server.port}`];
    const post = (headers: [string, string][], body = '{"archived":true}') =>
      rawRequest({
        port: server.port,
        method: "POST",
        path: `/api/sessions/${ADW}/archive`,
        headers: [host, ...headers],
        body,
      });
    const refusals: [string, [string, string][]][] = [
      ["form", [["Content-Type", "application/x-www-form-urlencoded"]]],
      ["text", [["Content-Type", "text/plain"]]],
      ["no type", []],
      ["cross-site", [JSON_TYPE, ["Sec-Fetch-Site", "cross-site"]]],
      ["same-site", [JSON_TYPE, ["Sec-Fetch-Site", "same-site"]]],
    ];
    for (const [what, headers] of refusals) {
      const response = await post(headers);
      expect(response.status, what).toBe(403);
      expect((JSON.parse(response.body) as { error: string }).error, what).not.toBe("");
    }
    expect(archived()).toBe(0);
    const same = await post([JSON_TYPE, ["Sec-Fetch-Site", "same-origin"]], '{"archived":false}');
    expect(same.status).toBe(200);
  });
});
