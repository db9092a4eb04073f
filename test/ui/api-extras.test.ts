import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerFile } from "../../src/approval/approval-files.js";
import type {
  ApprovalAnswered,
  ApprovalsView,
  FileText,
  PhaseDetail,
  SearchResult,
  UsageReport,
} from "../../src/ui/server/api-types.js";
import type { UiApp } from "../../src/ui/server/app.js";
import { at, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import {
  BASE,
  envelope,
  liveEvent,
  makeRepo,
  seedBuildRun,
  writeApprovalRequest,
} from "./feature-fixtures.js";
import { getJson, TraceWorld } from "./ui-fixtures.js";

let world: TraceWorld;
beforeEach(async () => {
  world = await TraceWorld.open();
});
afterEach(() => world.cleanup());

const ADW = "ext00001";

describe("search inside a run", () => {
  it("matches event names and payloads, tool arguments included, with % and _ taken literally", async () => {
    seedBuildRun(world, ADW, makeRepo(world.dir, ADW));
    const ui = await world.app();
    const byArgs = await getJson<SearchResult>(ui, `/api/sessions/${ADW}/search?q=NEEDLE_IN_ARGS`);
    expect(byArgs.total).toBe(1);
    expect(byArgs.hits[0]).toMatchObject({
      id: `${ADW}-tool1`,
      phase_id: `ph_${ADW}_1`,
      phase_number: 1,
      phase_name: "build",
    });
    expect(byArgs.hits[0]?.snippet).toContain("needle_in_args");
    expect((await getJson<SearchResult>(ui, `/api/sessions/${ADW}/search?q=50%25_done`)).total).toBe(1);
    // Unescaped, `%` and `_` would match every event.
    expect((await getJson<SearchResult>(ui, `/api/sessions/${ADW}/search?q=%25`)).total).toBe(1);
    expect(
      (await getJson<SearchResult>(ui, `/api/sessions/${ADW}/search?q=_`)).hits.map((h) => h.id),
    ).toEqual([`${ADW}-tool1`]);
    expect((await getJson<SearchResult>(ui, `/api/sessions/${ADW}/search?q=committed`)).total).toBe(2);
    expect((await getJson<SearchResult>(ui, `/api/sessions/${ADW}/search?q=nothing-like-this`)).hits).toEqual(
      [],
    );
    await getJson(ui, `/api/sessions/${ADW}/search?q=`, 400);
    await getJson(ui, `/api/sessions/nope0000/search?q=a`, 404);
  });
});

describe("cost and tokens", () => {
  it("sums per UTC day, per workflow, per agent and per model", async () => {
    seedBuildRun(world, ADW, makeRepo(world.dir, ADW));
    const next = Date.parse("2026-05-03T09:00:00Z");
    world.write(
      {
        table: "sessions",
        row: sessionRow("ext00002", at(next, 0), {
          workflow: "plan",
          cost_usd: 0.5,
          input_tokens: 1000,
          output_tokens: 10,
        }),
      },
      {
        table: "phases",
        row: phaseRow("ext00002", 1, at(next, 1), {
          owner: "planner",
          cost_usd: 0.5,
          input_tokens: 1000,
          output_tokens: 10,
        }),
      },
    );
    const ui = await world.app();
    const usage = await getJson<UsageReport>(ui, "/api/usage");
    expect(usage.days.map((d) => [d.day, d.runs, d.cost_usd])).toEqual([
      ["2026-05-01", 1, 0.12],
      ["2026-05-03", 1, 0.5],
    ]);
    expect(usage.workflows.map((w) => [w.workflow, w.runs, w.cost_usd])).toEqual([
      ["plan", 1, 0.5],
      ["build", 1, 0.12],
    ]);
    expect(usage.agents.map((a) => [a.agent, a.runs, a.input_tokens])).toEqual([
      ["planner", 1, 1000],
      ["builder", 1, 12_000],
    ]);
    expect(usage.models.map((m) => [m.model, m.coding_agent, m.cost_usd])).toEqual([
      ["unknown", "unknown", 0.5],
      ["claude-sonnet-4", "claude-code", 0.12],
    ]);
  });
});

describe("suite output", () => {
  it("serves the full log named by log_path, redacted, and refuses one outside the session", async () => {
    const { session } = seedBuildRun(world, ADW, makeRepo(world.dir, ADW));
    const ui = await world.app();
    const url = `/api/sessions/${ADW}/phases/ph_${ADW}_3/suite-log?envelope=${ADW}-verify`;
    const log = await getJson<FileText>(ui, url);
    expect(log.text).toContain("not ok 3 <b>bold</b>");
    expect(log.text).toContain("GITHUB_TOKEN=[redacted:github-pat]");
    expect(log.source).toBe(path.join("suites", "p03-test.log"));
    // The envelope must be that phase's VerifyOutput.
    await getJson(ui, `/api/sessions/${ADW}/phases/ph_${ADW}_2/suite-log?envelope=${ADW}-verify`, 404);
    await getJson(ui, `/api/sessions/${ADW}/phases/ph_${ADW}_2/suite-log?envelope=${ADW}-changes`, 404);

    const outside = path.join(world.dir, "passwd");
    writeFileSync(outside, "root:x:0:0\n");
    symlinkSync(outside, path.join(session, "suites", "link.log"));
    for (const logPath of [outside, "../../passwd", "suites/link.log", "", "suites"]) {
      world.write({
        table: "envelopes",
        row: envelope(
          ADW,
          `${ADW}-verify`,
          `ph_${ADW}_3`,
          "VerifyOutput",
          { passed: false, log_path: logPath },
          at(BASE, 69_000),
        ),
      });
      const refused = await ui.app.request(url);
      expect(refused.status, logPath).toBe(404);
      expect(await refused.text()).not.toContain("root:x");
    }
  });

  it("sends agent_text and tool_start events with the phase, whatever events.ts lists", async () => {
    world.write(
      { table: "sessions", row: sessionRow(ADW, at(BASE, 0)) },
      { table: "phases", row: phaseRow(ADW, 1, at(BASE, 1)) },
      {
        table: "events",
        row: liveEvent(ADW, "t1", at(BASE, 2), "agent_text", { text: "Reading the code" }, `ph_${ADW}_1`),
      },
      {
        table: "events",
        row: liveEvent(
          ADW,
          "t2",
          at(BASE, 3),
          "tool_start",
          { tool: "bash", args: { command: "ls" } },
          `ph_${ADW}_1`,
        ),
      },
    );
    const detail = await getJson<PhaseDetail>(await world.app(), `/api/sessions/${ADW}/phases/ph_${ADW}_1`);
    expect(detail.events.map((e) => e.type)).toEqual(["agent_text", "tool_start"]);
  });
});

const LOOPBACK = { incoming: { socket: { remoteAddress: "127.0.0.1" } } };
const PHASE = `ph_${ADW}_2`;

function post(ui: UiApp, body: unknown, headers: Record<string, string> = {}, env: unknown = LOOPBACK) {
  return ui.app.request(
    `/api/sessions/${ADW}/approvals/${PHASE}`,
    {
      method: "POST",
      headers: { "content-type": "application/json", host: "127.0.0.1:4477", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    env as Record<string, unknown>,
  );
}

describe("approvals", () => {
  beforeEach(() => {
    world.write(
      { table: "sessions", row: sessionRow(ADW, at(BASE, 0)) },
      {
        table: "phases",
        row: phaseRow(ADW, 2, at(BASE, 1), { kind: "engineer", owner: "engineer", name: "approve-plan" }),
      },
    );
  });

  it("lists the pending question and writes the answer as sssf approve does, by user@host (ui)", async () => {
    const dir = writeApprovalRequest(world, ADW, PHASE, "Ship <b>it</b>?");
    const ui = await world.app();
    const view = await getJson<ApprovalsView>(ui, `/api/sessions/${ADW}/approvals`);
    expect(view.pending).toEqual([
      expect.objectContaining({
        phase_id: PHASE,
        phase_number: 2,
        question: "Ship <b>it</b>?",
        details: { plan: "specs/plan.md" },
      }),
    ]);
    const response = await post(
      ui,
      { approved: true, reason: "" },
      { origin: "http://127.0.0.1:4477", "sec-fetch-site": "same-origin" },
    );
    expect(response.status).toBe(200);
    const answered = (await response.json()) as ApprovalAnswered;
    expect(answered.by).toMatch(/^.+@.+ \(ui\)$/);
    const file = JSON.parse(readFileSync(answerFile(dir, PHASE), "utf8")) as Record<string, unknown>;
    expect(file).toEqual({ approved: true, reason: "", by: answered.by, at: answered.at });
    // Answered once only.
    expect((await post(ui, { approved: false, reason: "changed my mind" })).status).toBe(409);
  });

  it("needs a reason to reject and writes it", async () => {
    const dir = writeApprovalRequest(world, ADW, PHASE, "Ship it?");
    const ui = await world.app();
    const bare = await post(ui, { approved: false, reason: "  " });
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain("reason");
    expect(existsSync(answerFile(dir, PHASE))).toBe(false);
    expect((await post(ui, { approved: false, reason: "tests are red" })).status).toBe(200);
    expect(JSON.parse(readFileSync(answerFile(dir, PHASE), "utf8"))).toMatchObject({
      approved: false,
      reason: "tests are red",
    });
  });

  it("refuses cross-site, non-JSON, foreign-origin and non-loopback requests, writing nothing", async () => {
    const dir = writeApprovalRequest(world, ADW, PHASE, "Ship it?");
    const ui = await world.app();
    const refusals: [string, Response][] = [
      ["form post", await post(ui, "approved=true", { "content-type": "application/x-www-form-urlencoded" })],
      ["text/plain", await post(ui, '{"approved":true}', { "content-type": "text/plain" })],
      ["cross-site fetch", await post(ui, { approved: true }, { "sec-fetch-site": "cross-site" })],
      ["foreign origin", await post(ui, { approved: true }, { origin: "http://evil.example" })],
      [
        "remote address",
        await post(ui, { approved: true }, {}, { incoming: { socket: { remoteAddress: "10.0.0.7" } } }),
      ],
      ["unknown address", await post(ui, { approved: true }, {}, {})],
      ["rebound host", await post(ui, { approved: true }, { host: "evil.example" })],
    ];
    for (const [what, response] of refusals) expect(response.status, what).toBe(403);
    expect(existsSync(answerFile(dir, PHASE))).toBe(false);
    // An IPv4-mapped loopback address is this machine.
    const mapped = await post(
      ui,
      { approved: true },
      {},
      { incoming: { socket: { remoteAddress: "::ffff:127.0.0.1" } } },
    );
    expect(mapped.status).toBe(200);
  });

  it("answers 404 when nothing waits, or the run that asked is gone", async () => {
    const ui = await world.app();
    expect((await post(ui, { approved: true })).status).toBe(404);
    const dir = writeApprovalRequest(world, ADW, PHASE, "Ship it?");
    const request = path.join(dir, `${PHASE}.request.json`);
    const dead = { ...JSON.parse(readFileSync(request, "utf8")), pid: 2 ** 22 + 12345 };
    writeFileSync(request, JSON.stringify(dead));
    expect((await getJson<ApprovalsView>(ui, `/api/sessions/${ADW}/approvals`)).pending).toEqual([]);
    expect((await post(ui, { approved: true })).status).toBe(404);
    expect((await post(ui, "{not json")).status).toBe(400);
  });
});

describe("compare address", () => {
  it("sends /compare/<a>/<b> to the client's route and refuses other ids", async () => {
    const ui = await world.app();
    const response = await ui.app.request("/compare/aaaa0001/aaaa0002");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/#/compare/aaaa0001/aaaa0002");
    expect((await ui.app.request("/compare/a%20b/c")).status).toBe(400);
  });
});
