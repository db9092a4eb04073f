/**
 * A best-of-N phase in the shipped headless Chromium, on a trace seeded as the best-of engine writes
 * it: the attempts side by side with the WINNER badge and its reason, each attempt's changed lines,
 * cost, gates (a loser's violation), check and saved diff (a missing one says so); the phase's model
 * escalation; a phase where no attempt passed; and a link in a diff path never served.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningUiServer, startUiServer } from "../../src/ui/server/start-server.js";
import { repoRoot } from "../helpers/sandbox.js";
import {
  BEST,
  BEST_PHASE,
  HOSTILE_PHASE,
  LOSER_VIOLATION,
  NONE,
  NONE_PHASE,
  seedBestOf,
  WINNER_REASON,
} from "./best-of-seed.js";
import { launchBrowser, openPage, screenshot } from "./browser-fixture.js";
import { TraceWorld } from "./ui-fixtures.js";

let browser: Browser;
let world: TraceWorld;
let server: RunningUiServer;

beforeAll(async () => {
  world = await TraceWorld.open();
  seedBestOf(world);
  server = await startUiServer({
    dbPath: world.dbPath,
    sessionsDir: world.sessionsDir,
    clientDir: path.join(repoRoot, "dist/ui/client"),
    port: 0,
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await world?.cleanup();
});

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? "").trim()));
const card = (k: number) => `.attempt-card[data-attempt="${k}"]`;

describe("a best-of-3 build", () => {
  it("shows the attempts side by side with the winner, why, and each one's gates, check, cost and diff", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}#/run/${BEST}/phase/${BEST_PHASE}`);
    await page.waitForSelector(".best-of");
    expect(await page.$eval(".best-of-choice", (el) => el.textContent)).toBe(
      `Winner: attempt 2 (best of all, 3 attempts): ${WINNER_REASON}`,
    );
    expect(
      await page.$$eval(".attempt-card", (els) => els.map((e) => e.getAttribute("data-status"))),
    ).toEqual(["failed", "passed", "passed"]);
    // Side by side: the three cards share one row.
    const tops = await page.$$eval(".attempt-card", (els) =>
      els.map((e) => Math.round(e.getBoundingClientRect().top)),
    );
    expect(new Set(tops).size).toBe(1);
    expect(await texts(page, ".winner-badge")).toEqual(["WINNER"]);
    expect(await page.$eval(`${card(2)} .winner-badge`, (el) => el.textContent)).toBe("WINNER");
    expect(await page.$eval(`${card(2)} .attempt-reason`, (el) => el.textContent)).toBe(WINNER_REASON);
    expect(await page.$eval(`${card(2)} .attempt-changed`, (el) => el.textContent)).toBe(
      "4 lines in 2 files",
    );
    expect(await page.$eval(`${card(2)} .attempt-cost`, (el) => el.textContent)).toBe(
      "$0.0200 · 2.4k in / 500 out",
    );
    expect(await page.$eval(`${card(2)} .attempt-check`, (el) => el.textContent)).toBe(
      "passed: test: 12 passed",
    );
    expect(await page.$eval(`${card(3)} .attempt-check`, (el) => el.textContent)).toBe(
      "failed: test: 1 failed",
    );
    expect(await page.$eval(`${card(1)} .attempt-check`, (el) => el.textContent)).toBe(
      "No check of its own.",
    );

    // The loser's failed gate with its violation; the winner's gates all passed.
    expect(
      await texts(page, `${card(1)} .gate-failed[data-gate="tests_kept"] .attempt-violations li`),
    ).toEqual([LOSER_VIOLATION]);
    expect(await page.$$(`${card(2)} .attempt-gates .gate-failed`)).toHaveLength(0);

    // Each attempt's own diff, read from the session folder; a missing one says so.
    await page.waitForSelector(`${card(1)} .diff-file`);
    await page.waitForSelector(`${card(2)} .diff-file`);
    expect(await texts(page, `${card(1)} .diff-add`)).toEqual(["+attempt one"]);
    expect(await texts(page, `${card(2)} .diff-file-head .mono`)).toEqual(["src/app.ts", "src/util.ts"]);
    expect(await texts(page, `${card(2)} .diff-add`)).toEqual(["+attempt two", "+two more"]);
    await page.waitForSelector(`${card(3)} .attempt-diff .error-line`);
    expect(await page.$eval(`${card(3)} .attempt-diff .error-line`, (el) => el.textContent)).toBe(
      `attempt 3's diff "attempts/01-build-3.diff" is missing from the session folder`,
    );

    // The model ladder's climb on the same phase.
    expect(await texts(page, ".escalation")).toEqual([
      expect.stringContaining(
        "fake/cheap → fake/strong (rung 2): gate violations after 2 correction(s): tests_kept",
      ),
    ]);
    await screenshot(page, "best-of-attempts");
    await page.close();
    expect(errors).toEqual([]);
  });

  it("shows a link out of the session folder as refused, never its target", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}#/run/${BEST}/phase/${HOSTILE_PHASE}`);
    await page.waitForSelector(`${card(3)} .attempt-diff .error-line`);
    expect(await page.$eval(`${card(3)} .attempt-diff .error-line`, (el) => el.textContent)).toContain(
      "is not a file inside the session folder",
    );
    await page.waitForSelector(`${card(1)} .attempt-diff .error-line`);
    expect(await page.content()).not.toContain("not a diff of this session");
    expect(await page.$$(".winner-badge")).toHaveLength(0);
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe("a best-of where no attempt passed", () => {
  it("says so, with each attempt's violations and no winner", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}#/run/${NONE}/phase/${NONE_PHASE}`);
    await page.waitForSelector(".best-of");
    expect(await page.$eval(".best-of-choice", (el) => el.textContent)).toBe(
      "No attempt passed (first passing, 2 attempts): no attempt passed its gates",
    );
    expect(await page.$$(".winner-badge")).toHaveLength(0);
    expect(await texts(page, ".attempt-violations li")).toEqual([
      "violation of attempt 1",
      "violation of attempt 2",
    ]);
    await page.close();
    expect(errors).toEqual([]);
  });
});
