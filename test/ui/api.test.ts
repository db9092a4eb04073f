import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PhaseDetail, RunView, SessionsPage, ToolCallsPage } from "../../src/ui/server/api-types.js";
import { CONTENT_SECURITY_POLICY } from "../../src/ui/server/guard/security.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { at, eventRow, sessionRecords, sessionRow } from "../trace/trace-fixtures.js";
import { getJson, TraceWorld } from "./ui-fixtures.js";

let world: TraceWorld;
beforeEach(async () => {
  world = await TraceWorld.open();
});
afterEach(() => world.cleanup());

const BASE = Date.parse("2026-05-01T10:00:00Z");

function seedSessions(): void {
  world.write(
    {
      table: "sessions",
      row: sessionRow("aaaa0001", at(BASE, 0), {
        request: "add a login page",
        workflow: "build",
        status: "success",
      }),
    },
    {
      table: "sessions",
      row: sessionRow("aaaa0002", at(BASE, 60_000), {
        request: "fix 50% of the bugs",
        workflow: "plan-build",
        status: "fail",
      }),
    },
    {
      table: "sessions",
      row: sessionRow("aaaa0003", at(BASE, 120_000), {
        request: "write docs",
        workflow: "build",
        status: "running",
      }),
    },
    {
      table: "sessions",
      row: sessionRow("aaaa0004", at(BASE, 180_000), {
        request: "old stuff",
        workflow: "build",
        archived: 1,
      }),
    },
  );
}

const ids = (page: SessionsPage) => page.sessions.map((s) => s.adw_id);

describe("GET /api/sessions", () => {
  it("lists sessions newest first with archived ones hidden unless asked, and every workflow name", async () => {
    seedSessions();
    const ui = await world.app();
    const page = await getJson<SessionsPage>(ui, "/api/sessions");
    expect(ids(page)).toEqual(["aaaa0003", "aaaa0002", "aaaa0001"]);
    expect(page.total).toBe(3);
    expect(page.workflows).toEqual(["build", "plan-build"]);
    expect(page.sessions[0]?._v).toBeGreaterThan(0);
    const all = await getJson<SessionsPage>(ui, "/api/sessions?archived=1");
    expect(ids(all)).toEqual(["aaaa0004", "aaaa0003", "aaaa0002", "aaaa0001"]);
  });

  it("searches request, workflow and id case-insensitively, with LIKE wildcards taken literally", async () => {
    seedSessions();
    const ui = await world.app();
    expect(ids(await getJson(ui, "/api/sessions?q=LOGIN"))).toEqual(["aaaa0001"]);
    expect(ids(await getJson(ui, "/api/sessions?q=plan-b"))).toEqual(["aaaa0002"]);
    expect(ids(await getJson(ui, "/api/sessions?q=aaaa0003"))).toEqual(["aaaa0003"]);
    expect(ids(await getJson(ui, "/api/sessions?q=50%25"))).toEqual(["aaaa0002"]);
    expect(ids(await getJson(ui, "/api/sessions?q=%25"))).toEqual(["aaaa0002"]);
    expect(ids(await getJson(ui, "/api/sessions?q=_"))).toEqual([]);
  });

  it("filters by status and workflow and pages with a total", async () => {
    seedSessions();
    const ui = await world.app();
    expect(ids(await getJson(ui, "/api/sessions?status=running"))).toEqual(["aaaa0003"]);
    expect(ids(await getJson(ui, "/api/sessions?workflow=build"))).toEqual(["aaaa0003", "aaaa0001"]);
    const page = await getJson<SessionsPage>(ui, "/api/sessions?limit=1&offset=1");
    expect(ids(page)).toEqual(["aaaa0002"]);
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 1 });
  });

  it("answers 400 naming the parameter for a bad status or page", async () => {
    const ui = await world.app();
    const bad = await getJson<{ error: string }>(ui, "/api/sessions?status=done", 400);
    expect(bad.error).toContain("status");
    expect((await getJson<{ error: string }>(ui, "/api/sessions?limit=0", 400)).error).toContain("limit");
    expect((await getJson<{ error: string }>(ui, "/api/sessions?offset=-1", 400)).error).toContain("offset");
  });
});

describe("a run and its phases", () => {
  beforeEach(() => {
    world.write(...sessionRecords("run00001", BASE));
  });

  it("GET /api/sessions/:id returns the session, phases by number, counts per phase and the agents", async () => {
    const ui = await world.app({ colors: { builder: "#abcdef" } });
    const run = await getJson<RunView>(ui, "/api/sessions/run00001");
    expect(run.session.status).toBe("fail");
    expect(run.phases.map((p) => [p.number, p.status])).toEqual([
      [1, "success"],
      [2, "success"],
      [3, "fail"],
    ]);
    expect(run.counts.ph_run00001_1).toEqual({
      tool_calls: 4,
      errors: 0,
      gate_fails: 0,
      attempts: 2,
      invalid: 1,
    });
    expect(run.agents).toEqual([
      { agent: "builder", model: "claude-sonnet-4", coding_agent: "pi", sends: 3, context_window: 200_000 },
    ]);
    expect(run.scheme.colors).toEqual({ builder: "#abcdef" });
    expect(run.tick).toBe(0);
    expect((await getJson<{ error: string }>(ui, "/api/sessions/nope", 404)).error).toContain(
      "no such session",
    );
  });

  it("GET …/phases/:id returns events, the latest tool calls, every envelope attempt, gates, processes and prompts", async () => {
    world.prompt("run00001", "builder", "p02-phase-2-1-initial.user.md", "Build the thing.");
    world.prompt("run00001", "builder", "p02-phase-2-2-json_fix.user.md", "Your reply was not JSON.");
    world.prompt("run00001", "builder", "p01-phase-1-1-initial.user.md", "another phase");
    world.prompt("run00001", "builder", "system.md", "You are the builder.");
    const ui = await world.app();
    const detail = await getJson<PhaseDetail>(ui, "/api/sessions/run00001/phases/ph_run00001_2");
    expect(detail.phase.name).toBe("phase-2");
    expect(detail.events.map((e) => e.type)).toEqual(["agent_start", "agent_end"]);
    expect(detail.tool_calls.total).toBe(4);
    expect(detail.tool_calls.rows.map((e) => e.id)).toEqual(
      [0, 1, 2, 3].map((i) => `evt_run00001_2_tool_${i}`),
    );
    expect(detail.envelopes.map((e) => [e.attempt, e.reason, e.valid])).toEqual([
      [1, "initial", 0],
      [2, "json_fix", 1],
    ]);
    expect(detail.gate_results.map((g) => g.gate)).toEqual(["files-exist"]);
    expect(detail.processes.map((p) => p.status)).toEqual(["exited"]);
    expect(detail.prompts.map((p) => [p.attempt, p.reason, p.text])).toEqual([
      [1, "initial", "Build the thing."],
      [2, "json_fix", "Your reply was not JSON."],
    ]);
    expect(detail.system_prompts).toEqual([{ agent: "builder", text: "You are the builder.", cut: 0 }]);
    expect(detail.counts).toMatchObject({ tool_calls: 4, attempts: 2, invalid: 1 });
    const files = await getJson<Pick<PhaseDetail, "prompts">>(
      ui,
      "/api/sessions/run00001/phases/ph_run00001_2/prompts",
    );
    expect(files.prompts).toHaveLength(2);
    await getJson(ui, "/api/sessions/run00001/phases/nope", 404);
  });

  it("pages tool calls and shortens long text columns, flagging the row", async () => {
    world.write({
      table: "events",
      row: eventRow("run00001", "evt_big", at(BASE, 1500), {
        phase_id: "ph_run00001_1",
        type: "tool_call",
        name: "write: big.txt",
        payload: JSON.stringify({ args: { content: "x".repeat(40_000) } }),
      }),
    });
    const ui = await world.app();
    const page = await getJson<ToolCallsPage>(
      ui,
      "/api/sessions/run00001/phases/ph_run00001_1/tool-calls?offset=1&limit=2",
    );
    expect(page).toMatchObject({ offset: 1, total: 5 });
    expect(page.rows.map((r) => r.id)).toEqual(["evt_run00001_1_tool_1", "evt_run00001_1_tool_2"]);
    const last = await getJson<ToolCallsPage>(
      ui,
      "/api/sessions/run00001/phases/ph_run00001_1/tool-calls?limit=1",
    );
    expect(last.rows[0]).toMatchObject({ id: "evt_big", _cut: 1 });
    expect(last.rows[0]?.payload).toHaveLength(32_768);
  });
});

describe("POST /api/sessions/:id/archive", () => {
  const post = async (
    world: TraceWorld,
    headers: Record<string, string>,
    body = '{"archived":true}',
    id = "aaaa0001",
  ) =>
    (await world.app()).app.request(`http://127.0.0.1:4477/api/sessions/${id}/archive`, {
      method: "POST",
      headers,
      body,
    });
  const archived = (id: string) => {
    const db = openRawSqlite(world.dbPath, { readonly: true });
    try {
      return (db.prepare("SELECT archived FROM sessions WHERE adw_id = ?").get(id) as { archived: number })
        .archived;
    } finally {
      db.close();
    }
  };
  const sameOrigin = {
    "content-type": "application/json",
    origin: "http://127.0.0.1:4477",
    "sec-fetch-site": "same-origin",
  };

  it("sets and clears the flag for a same-origin JSON request", async () => {
    seedSessions();
    const response = await post(world, sameOrigin);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { session: { archived: number } }).session.archived).toBe(1);
    expect(archived("aaaa0001")).toBe(1);
    expect(ids(await getJson(await world.app(), "/api/sessions"))).not.toContain("aaaa0001");
    expect((await post(world, sameOrigin, '{"archived":false}')).status).toBe(200);
    expect(archived("aaaa0001")).toBe(0);
  });

  it("refuses cross-site requests with 403 and writes nothing", async () => {
    seedSessions();
    const refusals: Record<string, string>[] = [
      { ...sameOrigin, origin: "http://evil.example" },
      { ...sameOrigin, origin: "null" },
      { ...sameOrigin, "sec-fetch-site": "cross-site" },
      { ...sameOrigin, "sec-fetch-site": "same-site" },
      { ...sameOrigin, "content-type": "text/plain" },
      { ...sameOrigin, "content-type": "application/x-www-form-urlencoded" },
      { origin: "http://127.0.0.1:4477" },
    ];
    for (const headers of refusals) {
      const response = await post(world, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    expect(archived("aaaa0001")).toBe(0);
  });

  it("answers 404 for an unknown session and 400 for a body without a boolean", async () => {
    seedSessions();
    expect((await post(world, sameOrigin, '{"archived":true}', "nope")).status).toBe(404);
    expect((await post(world, sameOrigin, '{"archived":"yes"}')).status).toBe(400);
    expect((await post(world, sameOrigin, "{")).status).toBe(400);
  });
});

describe("headers, hosts and static files", () => {
  it("sends the strict CSP and nosniff on every response, and never a CORS header", async () => {
    const ui = await world.app();
    for (const url of ["/api/sessions", "/api/nope", "/", "/assets/x.js"]) {
      const response = await ui.app.request(url);
      expect(response.headers.get("content-security-policy"), url).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get("x-content-type-options"), url).toBe("nosniff");
      expect(response.headers.get("access-control-allow-origin"), url).toBeNull();
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-inline");
    const preflight = await ui.app.request("/api/sessions/x/archive", {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("refuses a Host that is not this machine (DNS rebinding)", async () => {
    const ui = await world.app();
    expect((await ui.app.request("http://attacker.example:4477/api/sessions")).status).toBe(403);
    expect((await ui.app.request("http://localhost:4477/api/sessions")).status).toBe(200);
    expect((await ui.app.request("http://[::1]:4477/api/sessions")).status).toBe(200);
  });

  it("serves only the built client's files, and says how to build it when they are missing", async () => {
    const clientDir = path.join(world.dir, "client");
    mkdirSync(path.join(clientDir, "assets"), { recursive: true });
    writeFileSync(path.join(clientDir, "index.html"), "<!doctype html><title>x</title>");
    writeFileSync(path.join(clientDir, "assets", "index-abc.js"), "export {};");
    writeFileSync(path.join(world.dir, "secret.txt"), "secret");
    const ui = await world.app({ clientDir });
    const index = await ui.app.request("/");
    expect(index.headers.get("content-type")).toContain("text/html");
    expect(await index.text()).toContain("<title>x</title>");
    const script = await ui.app.request("/assets/index-abc.js");
    expect(script.headers.get("content-type")).toContain("text/javascript");
    expect(script.headers.get("cache-control")).toContain("immutable");
    expect((await ui.app.request("/../secret.txt")).status).toBe(404);
    expect((await ui.app.request("/assets/../../secret.txt")).status).toBe(404);
    const unbuilt = await (await world.app()).app.request("/");
    expect(unbuilt.status).toBe(503);
    expect(await unbuilt.text()).toContain("npm run build");
  });
});
