/** The merge routes' guard: only same-origin JSON from this machine lands a run; refusals are 409s with the line. */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUiApp, type UiApp } from "../../src/ui/server/app.js";
import { makeRepo, seedBuildRun } from "./feature-fixtures.js";
import { TraceWorld } from "./ui-fixtures.js";

const ADW = "a1b2c3d4";
const LOOPBACK = { incoming: { socket: { remoteAddress: "127.0.0.1" } } };

let world: TraceWorld;
let ui: UiApp;
let repo: ReturnType<typeof makeRepo>;
beforeEach(async () => {
  world = await TraceWorld.open();
  repo = makeRepo(world.dir, ADW);
  seedBuildRun(world, ADW, repo);
  ui = await createUiApp({
    dbPath: world.dbPath,
    sessionsDir: world.sessionsDir,
    clientDir: path.join(world.dir, "no-client"),
    merge: { checkout: repo.repo, strategy: "ff" },
    hub: { fallbackMs: 50 },
  });
});
afterEach(async () => {
  await ui.close();
  await world.cleanup();
});

function post(headers: Record<string, string> = {}, env: unknown = LOOPBACK, body = "{}") {
  return ui.app.request(
    `/api/sessions/${ADW}/merge`,
    {
      method: "POST",
      headers: { "content-type": "application/json", host: "127.0.0.1:4477", ...headers },
      body,
    },
    env as Record<string, unknown>,
  );
}

describe("POST /api/sessions/:adw_id/merge", () => {
  it("refuses cross-site, non-JSON, foreign-origin and non-loopback requests with 403", async () => {
    const refusals: [string, Response][] = [
      ["form post", await post({ "content-type": "application/x-www-form-urlencoded" }, LOOPBACK, "a=1")],
      ["cross-site fetch", await post({ "sec-fetch-site": "cross-site" })],
      ["foreign origin", await post({ origin: "http://evil.example" })],
      ["remote address", await post({}, { incoming: { socket: { remoteAddress: "10.0.0.7" } } })],
      ["unknown address", await post({}, {})],
      ["rebound host", await post({ host: "evil.example" })],
    ];
    for (const [what, response] of refusals) expect(response.status, what).toBe(403);
  });

  it("answers a run that was not accepted with 409 and the refusal line, GET saying the same", async () => {
    const look = (await (
      await ui.app.request(`/api/sessions/${ADW}/merge`, { headers: { host: "127.0.0.1:4477" } }, LOOPBACK)
    ).json()) as { refusal: string; branch_exists: boolean };
    expect(look.branch_exists).toBe(true);
    expect(look.refusal).toMatch(/^session a1b2c3d4 was not accepted \(status fail/);
    const refused = await post();
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toBe(look.refusal);
    const unknown = await ui.app.request(
      "/api/sessions/ffffffff/merge",
      { method: "POST", headers: { "content-type": "application/json", host: "127.0.0.1:4477" }, body: "{}" },
      LOOPBACK,
    );
    expect(unknown.status).toBe(404);
  });
});
