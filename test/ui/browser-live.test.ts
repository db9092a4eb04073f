import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { launchBrowser, openPage, screenshot, startUi, type UiProcess, until } from "./browser-fixture.js";

let browser: Browser;
let sb: Sandbox;
let ui: UiProcess | null = null;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(async () => {
  await ui?.stop();
  ui = null;
  sb.cleanup();
});

const ADW = "live0001";
const PHASE = `${ADW}-p02`;

// Page scripts as text: the tests are compiled without the DOM library.
const SET_MARKER = "window.__marker = 'no reload'";
// Stamps the wall-clock time each tool call first shows (report-only latency probe).
const STAMP_TOOL_CALLS = `
  window.__seen = {};
  new MutationObserver(() => {
    for (const el of document.querySelectorAll(".tool-call[data-event-id]"))
      window.__seen[el.getAttribute("data-event-id")] ??= Date.now();
  }).observe(document.body, { childList: true, subtree: true });`;

/** A tool call that blocks until the test creates `gate` (reported args never name the file). */
const waitFor = (gate: string, label: string) => ({
  tool: "bash",
  args: { command: `wait for ${label}` },
  bash: `while [ ! -f '${gate}' ]; do sleep 0.02; done; echo ${label} released`,
});

describe("sssf ui in a browser while a workflow runs", () => {
  it("shows phases and tool calls appear live, without reloading, across the three views", async () => {
    const gate1 = path.join(sb.agentsDir, "go-1");
    const gate2 = path.join(sb.agentsDir, "go-2");
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [
              waitFor(gate1, "gate one"),
              { tool: "read", args: { path: "README.md" }, result: "# sandbox", duration_ms: 150 },
              { tool: "grep", args: { pattern: "todo" }, result: "no match", ok: false, duration_ms: 150 },
              waitFor(gate2, "gate two"),
            ],
            reply: "I think I am done (no JSON here)",
            usage: { input_tokens: 1200, output_tokens: 80, cost: 0.004, context_tokens: 9000 },
          },
          {
            tool_calls: [{ tool: "bash", args: { command: "ls" }, result: "README.md", duration_ms: 100 }],
            reply: envelopeJson({ summary: "listed the files" }),
          },
        ],
      },
    ]);
    const run = sb.start(["run", "prompt", "list the files, live", "--adw-id", ADW]);
    const finished = collect(run);
    const dbPath = path.join(sb.dir, "adws/adw_data/sssf.db");
    // The run creates the database, then its tables: until both exist, reading fails.
    const sessionWritten = async () => {
      try {
        return existsSync(dbPath) && sb.query("SELECT 1 FROM sessions").length > 0;
      } catch {
        return false;
      }
    };
    await until(sessionWritten, Boolean, "the session row");
    ui = await startUi(sb);
    const { page, errors } = await openPage(browser);

    // Sessions list: the run is there with its live badge.
    await page.goto(ui.url);
    await page.waitForSelector(`tr[data-adw-id="${ADW}"] .badge-running`);
    await page.evaluate(SET_MARKER);
    await screenshot(page, "sessions");

    // Run view: the agent phase is a running bar in the assistant's lane.
    await page.click(`tr[data-adw-id="${ADW}"] a`);
    await page.waitForSelector(
      `.wf-row[data-lane="assistant"] .wf-bar.status-running[data-phase-id="${PHASE}"]`,
    );
    const width = () =>
      page.$eval(`.wf-bar[data-phase-id="${PHASE}"]`, (el) => el.getBoundingClientRect().width);
    const before = await width();
    await until(width, (w) => w > before, "the running bar to grow");
    await screenshot(page, "run");

    // Phase detail: nothing yet, then tool calls arrive one by one while the phase still runs.
    await page.click(`.wf-bar[data-phase-id="${PHASE}"]`);
    await page.waitForSelector(`.phase-detail[data-phase-id="${PHASE}"]`);
    const toolCalls = () => page.$$eval(".tool-call", (items) => items.map((item) => item.textContent ?? ""));
    expect(await toolCalls()).toEqual([]);
    await page.evaluate(STAMP_TOOL_CALLS);
    writeFileSync(gate1, "");
    const firstThree = await until(toolCalls, (calls) => calls.length >= 3, "three tool calls");
    expect(firstThree).toHaveLength(3);
    expect(firstThree[1]).toContain("read: README.md");
    expect(firstThree[2]).toContain("no match");
    expect(await page.$eval(".phase-header .badge", (el) => el.textContent)).toBe("live");
    expect(await page.$$eval(".attempt", (items) => items.length)).toBe(1);

    // The invalid reply, the correction sent, the second attempt and its tool call follow, live.
    writeFileSync(gate2, "");
    await page.waitForSelector('.attempt[data-attempt="1"] .envelope.invalid');
    await page.waitForSelector('.attempt[data-attempt="2"] .envelope.valid');
    await page.waitForSelector(".phase-header .badge-success");
    expect((await toolCalls()).length).toBe(5);
    const correction = await page.$eval('.attempt[data-attempt="2"]', (el) => el.textContent ?? "");
    expect(correction).toContain("correction after invalid JSON");
    expect(correction).toContain("Correction sent");
    expect(await page.evaluate("window.__marker")).toBe("no reload");
    await page.$$eval(".attempts details, .tool-list details", (folds) => {
      for (const fold of folds) fold.setAttribute("open", "");
    });
    await screenshot(page, "phase");
    expect((await finished).code).toBe(0);

    // Report-only probe: tool call end (just before its commit) → on screen.
    const seen = (await page.evaluate("window.__seen")) as Record<string, number>;
    const ends = sb.query<{ id: string; ended_at: string }>(
      "SELECT id, ended_at FROM events WHERE type = 'tool_call'",
    );
    const lags = ends
      .filter((e) => seen[e.id] !== undefined)
      .map((e) => (seen[e.id] ?? 0) - Date.parse(e.ended_at));
    console.log(`ui live probe: tool call end → screen, ms: ${lags.sort((a, b) => a - b).join(", ")}`);

    // Back to the run and the list through the page's own links: still the same document.
    await page.click(`.crumbs a[href="#/run/${ADW}"]`);
    await page.waitForSelector(`.wf-bar.status-success[data-phase-id="${PHASE}"]`);
    expect(await page.$eval(".run-header .badge", (el) => el.textContent)).toBe("success");
    await page.click('.crumbs a[href="#/"]');
    await page.waitForSelector(`tr[data-adw-id="${ADW}"] .badge-success`);
    expect(await page.evaluate("window.__marker")).toBe("no reload");
    expect(errors).toEqual([]);
  });
});
