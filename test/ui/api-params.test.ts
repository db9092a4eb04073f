import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningUiServer, startUiServer } from "../../src/ui/server/start-server.js";
import { at, sessionRow } from "../trace/trace-fixtures.js";
import { BASE } from "./feature-fixtures.js";
import { rawRequest } from "./raw-http.js";
import { TraceWorld } from "./ui-fixtures.js";

const ADW = "param001";

let world: TraceWorld;
let server: RunningUiServer;
/** Every GET and POST route under `/api/sessions/:adwId`, as the app registered them. */
let sessionRoutes: { method: string; path: string }[];

beforeAll(async () => {
  world = await TraceWorld.open();
  world.write({ table: "sessions", row: sessionRow(ADW, at(BASE, 0)) });
  // A route with middleware is listed once per handler: keep one of each.
  const routes = new Map<string, { method: string; path: string }>();
  for (const { method, path } of (await world.app()).app.routes) {
    if ((method === "GET" || method === "POST") && path.startsWith("/api/sessions/:adwId")) {
      routes.set(`${method} ${path}`, { method, path });
    }
  }
  sessionRoutes = [...routes.values()];
  server = await startUiServer({ dbPath: world.dbPath, sessionsDir: world.sessionsDir, port: 0 });
});
afterAll(async () => {
  await server.close();
  await world.cleanup();
});

/** A same-origin request as the page sends it; writes carry a JSON body. */
function request(method: string, path: string, body = "{}") {
  const host = `127.0.0.1:${server.port}`;
  const write = method === "POST";
  return rawRequest({
    port: server.port,
    method,
    path,
    headers: [
      ["Host", host],
      ...(write
        ? ([
            ["Origin", `http://${host}`],
            ["Content-Type", "application/json"],
          ] as [string, string][])
        : []),
    ],
    ...(write ? { body } : {}),
  });
}

/** The route's path with `adwId` given, every other parameter a plain token, `q` set for search. */
function fill(routePath: string, adwId: string): string {
  const filled = routePath.replace(":adwId", adwId).replace(/:[A-Za-z]+/g, "x1");
  return filled.endsWith("/search") ? `${filled}?q=a` : filled;
}

function errorOf(body: string): string {
  return (JSON.parse(body) as { error: string }).error;
}

describe("every route under /api/sessions/:adw_id", () => {
  it("covers the session, its phases, changes, approvals and the archive flag", () => {
    const paths = sessionRoutes.map((r) => `${r.method} ${r.path}`);
    for (const expected of [
      "GET /api/sessions/:adwId",
      "GET /api/sessions/:adwId/phases/:phaseId/tool-calls",
      "GET /api/sessions/:adwId/approvals",
      "GET /api/sessions/:adwId/changes",
      "POST /api/sessions/:adwId/archive",
      "POST /api/sessions/:adwId/approvals/:phaseId",
    ]) {
      expect(paths).toContain(expected);
    }
  });

  it("answers 404 with a message naming an unknown session, never an empty 200", async () => {
    for (const route of sessionRoutes) {
      const response = await request(route.method, fill(route.path, "nosuch01"));
      const what = `${route.method} ${route.path}`;
      expect(response.status, what).toBe(404);
      expect(errorOf(response.body), what).toBe("no such session: nosuch01");
    }
  });

  it("answers 400 naming adw_id for a malformed id or a path trick, before any lookup", async () => {
    const malformed = ["..%2F..%2Fetc", "-rf", "a%00b", "a%20b", "%E2%80%AEx", "a".repeat(200), ".hidden"];
    for (const route of sessionRoutes) {
      for (const id of malformed) {
        const response = await request(route.method, fill(route.path, id));
        const what = `${route.method} ${route.path} with ${id.slice(0, 20)}`;
        expect(response.status, what).toBe(400);
        expect(errorOf(response.body), what).toMatch(/^adw_id: expected a session id/);
      }
    }
  });

  it("answers a bad archive body with 400 naming the body, an oversized one included", async () => {
    const archive = `/api/sessions/${ADW}/archive`;
    const bodies: [string, string][] = [
      ["not JSON", "{"],
      ["no flag", "{}"],
      ["a string flag", '{"archived":"yes"}'],
      ["null", "null"],
      ["an array", "[true]"],
      ["over 1024 bytes", JSON.stringify({ archived: true, pad: "x".repeat(2000) })],
    ];
    for (const [what, body] of bodies) {
      const response = await request("POST", archive, body);
      expect(response.status, what).toBe(400);
      expect(errorOf(response.body), what).toMatch(/^body: /);
    }
    const approval = await request(
      "POST",
      `/api/sessions/${ADW}/approvals/ph_1`,
      JSON.stringify({ approved: false, reason: "x".repeat(20_000) }),
    );
    expect(approval.status).toBe(400);
    expect(errorOf(approval.body)).toMatch(/^body: expected at most 16384 bytes/);
    const served = await request("POST", archive, '{"archived":false}');
    expect(served.status).toBe(200);
  });
});
