import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answerFile } from "../../src/approval/approval-files.js";
import { type RunningUiServer, startUiServer } from "../../src/ui/server/start-server.js";
import { repoRoot } from "../helpers/sandbox.js";
import { at, eventRow } from "../trace/trace-fixtures.js";
import {
  BUILD,
  HOSTILE,
  LIVE,
  LIVE_PHASE,
  OTHER,
  seedFeatures,
  WAIT,
  WAIT_PHASE,
} from "./browser-features-seed.js";
import { launchBrowser, openPage, screenshot, until } from "./browser-fixture.js";
import { liveEvent, type makeRepo, writeApprovalRequest } from "./feature-fixtures.js";
import { TraceWorld } from "./ui-fixtures.js";

// One seeded trace for every test here: a finished build run with a branch, commits, a saved diff and
// a failed suite; a second build run to compare with; a running agent phase streaming text; and a
// running engineer phase about to ask. The server runs in-process over the built client.
let browser: Browser;
let world: TraceWorld;
let server: RunningUiServer;
let repo: ReturnType<typeof makeRepo>;

beforeAll(async () => {
  world = await TraceWorld.open();
  repo = seedFeatures(world);
  server = await startUiServer({
    dbPath: world.dbPath,
    sessionsDir: world.sessionsDir,
    clientDir: path.join(repoRoot, "dist/ui/client"),
    port: 0,
    hub: { fallbackMs: 100 },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await world?.cleanup();
});

// Chromium allows six connections per host across pages: close each test's page (and its streams).
let pages: Page[] = [];
afterEach(async () => {
  for (const page of pages) await page.close();
  pages = [];
});

async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await openPage(browser);
  pages.push(page);
  await page.goto(`${server.url}${hash}`);
  return { page, errors };
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ""));

async function assertInert(page: Page): Promise<void> {
  expect(
    await page.evaluate(`({ pwned: window.__pwned, imgs: document.querySelectorAll("img").length })`),
  ).toEqual({
    pwned: undefined,
    imgs: 0,
  });
}

describe("the run's changes, search and suite output in a browser", () => {
  it("shows the total diff, a commit's diff and the saved phase diff with colored lines", async () => {
    const { page, errors } = await open(`#/run/${BUILD}`);
    await page.waitForSelector(".run-changes[data-ready]");
    expect(await texts(page, ".commit summary")).toEqual([
      expect.stringContaining(`${repo.first.slice(0, 12)} change b`),
      expect.stringContaining(`${repo.second.slice(0, 12)} add new.ts`),
    ]);
    await page.click(".total-diff summary");
    await page.waitForSelector('.total-diff .diff-file[data-file="app.ts"] .diff-add');
    expect(await texts(page, ".total-diff .diff-files li")).toEqual([
      expect.stringContaining("app.ts"),
      expect.stringContaining("new.ts"),
      expect.stringContaining("secret.env"),
    ]);
    expect(await texts(page, '.total-diff .diff-file[data-file="app.ts"] .diff-del')).toEqual([
      "-export const b = 2;\n",
    ]);
    expect(await texts(page, '.total-diff .diff-file[data-file="secret.env"] .diff-add')).toEqual([
      "+OPENAI_API_KEY=[redacted:openai-api-key]\n",
    ]);
    // Repo text is text: the diff's `<script>` lines are shown, never run.
    expect((await texts(page, '.total-diff .diff-file[data-file="new.ts"] .diff-add'))[0]).toContain(
      "<script>alert(1)</script>",
    );
    await page.click(`.commit[data-sha="${repo.first}"] summary`);
    await page.waitForSelector(`.commit[data-sha="${repo.first}"] .diff-file[data-file="app.ts"]`);
    await page.click(".phase-diff summary");
    await page.waitForSelector(".phase-diff .diff-file .diff-add");
    await page.$eval(".run-changes", (el) => el.scrollIntoView());
    await screenshot(page, "changes");
    await assertInert(page);
    expect(errors).toEqual([]);
  });

  it("finds events by tool argument and links each hit to its phase", async () => {
    const { page, errors } = await open(`#/run/${BUILD}`);
    await page.waitForSelector(".run-search-input");
    await page.fill(".run-search-input", "needle_in");
    await page.press(".run-search-input", "Enter");
    await page.waitForSelector(".search-hit");
    expect(await texts(page, ".search-hit .hit-phase")).toEqual(["#1 build"]);
    expect((await texts(page, ".hit-snippet"))[0]).toContain("grep -rn 'needle_in_args' src");
    await screenshot(page, "search");
    await page.fill(".run-search-input", "100%");
    await page.press(".run-search-input", "Enter");
    await page.waitForSelector('.search-results[data-q="100%"]');
    expect(await page.$$eval(".search-hit", (hits) => hits.length)).toBe(0);
    await page.fill(".run-search-input", "needle_in");
    await page.press(".run-search-input", "Enter");
    await page.waitForSelector('.search-results[data-q="needle_in"] .search-hit');
    await page.click(".search-hit .hit-phase");
    await page.waitForSelector(`.phase-detail[data-phase-id="ph_${BUILD}_1"]`);
    expect(errors).toEqual([]);
  });

  it("shows a suite's output tail and its full log as monospace text", async () => {
    const { page, errors } = await open(`#/run/${BUILD}/phase/ph_${BUILD}_3`);
    await page.waitForSelector(".suite.failed");
    expect(await page.$eval(".suite", (el) => el.textContent ?? "")).toContain("test failed · exit 1");
    expect(await page.$eval(".suite-tail pre", (el) => el.textContent)).toBe("ok 2\nnot ok 3 <b>bold</b>\n");
    expect(await page.$$eval(".suite-tail b", (bold) => bold.length)).toBe(0);
    await page.click(".suite summary");
    await page.waitForSelector(".suite-log pre");
    const log = await page.$eval(".suite-log pre", (el) => el.textContent ?? "");
    expect(log).toContain("running 3 tests\nok 1");
    expect(log).toContain("GITHUB_TOKEN=[redacted:github-pat]");
    await screenshot(page, "suite-output");
    expect(errors).toEqual([]);
  });
});

describe("live views in a browser", () => {
  it("tails the agent's text and the tool call in flight as rows arrive", async () => {
    const { page, errors } = await open(`#/run/${LIVE}/phase/${LIVE_PHASE}`);
    await page.waitForSelector(".live-tail .tool-in-flight");
    expect(await page.$eval(".tool-in-flight .tool-name", (el) => el.textContent)).toBe("bash");
    expect(await page.$eval(".tool-in-flight pre", (el) => el.textContent ?? "")).toContain(
      HOSTILE.replace(/"/g, '\\"'),
    );
    expect(await page.$eval(".live-tail .agent-text pre", (el) => el.textContent)).toBe(
      "Reading the repository layout.",
    );
    await screenshot(page, "live-tail");
    // The tool finishes and the agent says more: the in-flight box empties and the text grows, live.
    world.write(
      {
        table: "events",
        row: eventRow(LIVE, "lt3", at(Date.now(), -1500), {
          phase_id: LIVE_PHASE,
          type: "tool_call",
          name: "bash: npm test",
          agent: "planner",
          ok: 1,
          payload: JSON.stringify({ tool: "bash", args: { command: "npm test" }, result: "ok" }),
        }),
      },
      {
        table: "events",
        row: liveEvent(
          LIVE,
          "lt4",
          at(Date.now(), 0),
          "agent_text",
          { text: "Tests pass; writing the plan." },
          LIVE_PHASE,
        ),
      },
    );
    await page.waitForSelector(".live-tail .tool-in-flight-none");
    await until(
      () => page.$eval(".live-tail .agent-text pre", (el) => el.textContent ?? ""),
      (text) => text.includes("Tests pass"),
      "the new agent text",
    );
    expect(await page.$eval(".live-tail .agent-text pre", (el) => el.textContent)).toBe(
      "Reading the repository layout.\nTests pass; writing the plan.",
    );
    // Tail events stay out of the events list.
    expect((await texts(page, ".event-list .event-type")).filter((t) => t === "agent_text")).toEqual([]);
    await screenshot(page, "live-tail-after");
    await assertInert(page);
    expect(errors).toEqual([]);
  });

  it("asks the engineer's question when it comes, and rejects only with a reason, as the UI", async () => {
    const { page, errors } = await open(`#/run/${WAIT}`);
    await page.waitForSelector(".waterfall[data-ready]");
    expect(await page.$$eval(".approval", (els) => els.length)).toBe(0);
    const dir = writeApprovalRequest(world, WAIT, WAIT_PHASE, `Build this plan? ${HOSTILE}`);
    world.write({
      table: "events",
      row: eventRow(WAIT, "ask1", at(Date.now(), 0), {
        phase_id: WAIT_PHASE,
        name: "waiting for approval: Build this plan?",
      }),
    });
    await page.waitForSelector(`.approval[data-phase-id="${WAIT_PHASE}"]`);
    expect(await page.$eval(".approval-question pre", (el) => el.textContent)).toBe(
      `Build this plan? ${HOSTILE}`,
    );
    expect(await page.$eval("button.reject", (b) => (b as unknown as { disabled: boolean }).disabled)).toBe(
      true,
    );
    await page.fill(".approval-reason", "the plan skips the migration");
    await screenshot(page, "approval");
    await page.click("button.reject");
    await page.waitForSelector(".approval-done");
    expect(await page.$eval(".approval-done", (el) => el.textContent ?? "")).toMatch(
      /^Rejected by .+@.+ \(ui\)$/,
    );
    const answer = JSON.parse(readFileSync(answerFile(dir, WAIT_PHASE), "utf8")) as Record<string, unknown>;
    expect(answer).toMatchObject({ approved: false, reason: "the plan skips the migration" });
    expect(String(answer.by)).toMatch(/ \(ui\)$/);
    await screenshot(page, "approval-answered");
    await assertInert(page);
    expect(errors).toEqual([]);
  });
});

describe("usage and comparison in a browser", () => {
  it("charts cumulative cost and tokens per day and breaks spend down by workflow, agent and model", async () => {
    const { page, errors } = await open("#/");
    await page.click('.top-nav a[href="#/usage"]');
    await page.waitForSelector(".usage-view[data-ready]");
    expect(await page.$$eval(".line-chart .dot", (dots) => dots.length)).toBe(6); // 2 charts × 3 days
    expect(await page.$eval(".usage-total-cost", (el) => el.textContent)).toBe("$0.5200");
    expect(await texts(page, '[data-breakdown="workflow"] tbody td:first-child')).toEqual([
      "build",
      "plan",
      "plan-build",
    ]);
    expect(await texts(page, '[data-breakdown="agent"] tbody td:first-child')).toEqual([
      "builder",
      "planner",
      "reviewer",
    ]);
    expect(await texts(page, '[data-breakdown="model"] tbody td:first-child')).toContain(
      "claude-sonnet-4 (claude-code)",
    );
    expect(await page.$$eval('[data-breakdown="workflow"] .bar', (bars) => bars.length)).toBe(3);
    await screenshot(page, "usage");
    expect(errors).toEqual([]);
  });

  it("compares two runs picked on the sessions list, phases aligned and differences marked", async () => {
    const { page, errors } = await open("#/");
    await page.waitForSelector(`tr[data-adw-id="${BUILD}"]`);
    expect(await page.$eval(".compare-button", (b) => (b as unknown as { disabled: boolean }).disabled)).toBe(
      true,
    );
    await page.check(`tr[data-adw-id="${BUILD}"] input.pick`);
    await page.check(`tr[data-adw-id="${OTHER}"] input.pick`);
    await page.click(".compare-button");
    await page.waitForSelector(".compare-view[data-ready]");
    expect(page.url()).toContain(`#/compare/${BUILD}/${OTHER}`);
    const rows = await page.$$eval(".compare-row", (trs) =>
      trs.map((tr) => [tr.getAttribute("data-name"), tr.classList.contains("unmatched")]),
    );
    expect(rows).toEqual([
      ["build", false],
      ["commit", true],
      ["review", true],
      ["test", false],
    ]);
    // build: 60 s against 25 s, $0.12 against $0.40; test: fail against success.
    const build = '.compare-row[data-name="build"]';
    expect(await page.$$eval(`${build} td.diff-cell`, (cells) => cells.length)).toBeGreaterThanOrEqual(4);
    expect(await page.$$eval('.compare-row[data-name="test"] td.diff-cell .badge', (b) => b.length)).toBe(2);
    expect(await texts(page, ".compare-totals .diff-cell")).toContain("$0.4000");
    await screenshot(page, "compare");
    // The shareable address lands on the same view.
    await page.goto(`${server.url}compare/${OTHER}/${BUILD}`);
    await page.waitForSelector(".compare-view[data-ready]");
    expect(await page.$eval(".compare-table thead th", (th) => th.textContent ?? "")).toContain(OTHER);
    expect(existsSync(path.join(repoRoot, "test-artifacts/ui/compare.png"))).toBe(true);
    expect(errors).toEqual([]);
  });
});
