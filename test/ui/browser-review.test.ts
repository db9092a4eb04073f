/**
 * The reviewer's questions answered in the shipped headless Chromium, against `sssf ui` of the built
 * CLI over two real `build-test` runs of one request (a fix that worked, fixes that never did): why
 * the failed one failed (list and run), what the build and each fix changed and the fix against the
 * first build, the commit's true file count, no "yet" on a finished phase, and the two runs compared
 * with their diffs and final envelopes.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, type WorktreeWorld } from "../worktree/worktree-world.js";
import { launchBrowser, openPage, screenshot, startUi, type UiProcess } from "./browser-fixture.js";
import { twoRuns } from "./review-runs.js";

let browser: Browser;
let world: WorktreeWorld;
let ui: UiProcess;
let fixed: string;
let exhausted: string;

beforeAll(async () => {
  const runs = await twoRuns();
  ({ world, fixed, exhausted } = runs);
  ui = await startUi(world.sb);
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  world?.cleanup();
});

async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await openPage(browser);
  await page.goto(`${ui.url}${hash}`);
  return { page, errors };
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ""));
const phase = (adwId: string, n: number) => `${adwId}-p${String(n).padStart(2, "0")}`;

describe("why a run failed", () => {
  it("labels the failed run in the list, with the whole reason as its tooltip", async () => {
    const { page, errors } = await open("#/");
    const badge = `tr[data-adw-id="${exhausted}"] .outcome`;
    await page.waitForSelector(badge);
    expect(await page.$eval(badge, (el) => [el.textContent, el.getAttribute("title")])).toEqual([
      "fixes exhausted (2 rounds)",
      "tests still fail after 2 fix(es)",
    ]);
    expect(await page.$$(`tr[data-adw-id="${fixed}"] .outcome`)).toHaveLength(0);
    await screenshot(page, "review-sessions-outcome");
    await page.close();
    expect(errors).toEqual([]);
  });

  it("says it on the run's page, linking the failing phase", async () => {
    const { page, errors } = await open(`#/run/${exhausted}`);
    await page.waitForSelector(".run-outcome");
    expect(await page.$eval(".run-outcome", (el) => el.textContent)).toBe(
      "fixes exhausted (2 rounds) the phase: tests still fail after 2 fix(es)",
    );
    expect(await page.$eval(".run-outcome a", (el) => el.getAttribute("href"))).toBe(
      `#/run/${exhausted}/phase/${phase(exhausted, 7)}`,
    );
    await screenshot(page, "review-run-outcome");
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe("what the build and each fix changed", () => {
  it("shows each phase's own diff and the fix against the first build", async () => {
    const { page, errors } = await open(`#/run/${fixed}`);
    await page.waitForSelector(".phase-diffs[data-ready]");
    expect(await texts(page, ".phase-tree-diff summary")).toEqual(["#2 build · 2 files", "#4 fix · 1 file"]);
    await page.click(`.phase-tree-diff[data-phase-id="${phase(fixed, 4)}"] summary`);
    const fixDiff = `.phase-tree-diff[data-phase-id="${phase(fixed, 4)}"] .diff-file[data-file="src/app.js"]`;
    await page.waitForSelector(`${fixDiff} .diff-add`);
    expect(await texts(page, `${fixDiff} .diff-del`)).toEqual(['-export const app = "broken";\n']);
    expect(await texts(page, `${fixDiff} .diff-add`)).toEqual(['+export const app = "fixed";\n']);

    expect(await page.$eval(".fix-vs-build summary", (el) => el.textContent)).toBe(
      "Fix vs first build: after #2 build → after #4 fix",
    );
    await page.click(".fix-vs-build summary");
    await page.waitForSelector(".fix-vs-build .diff-file");
    expect(await texts(page, ".fix-vs-build .diff-files li")).toEqual([
      expect.stringContaining("src/app.js"),
    ]);

    // The commit holds two files, and says so.
    await page.waitForSelector(".run-changes[data-ready] .commit summary");
    expect((await texts(page, ".commit summary"))[0]).toContain("Add the feature · 2 files ·");
    await page.$eval(".phase-diffs", (el) => el.scrollIntoView());
    await screenshot(page, "review-phase-diffs");
    await page.close();
    expect(errors).toEqual([]);
  });

  it("shows the fix's own diff on the fix's page", async () => {
    const { page, errors } = await open(`#/run/${fixed}/phase/${phase(fixed, 4)}`);
    await page.waitForSelector(".phase-detail .phase-tree-diff summary");
    expect(await page.$eval(".phase-detail .phase-tree-diff summary", (el) => el.textContent)).toBe(
      "#4 fix · 1 file",
    );
    await page.click(".phase-detail .phase-tree-diff summary");
    await page.waitForSelector('.phase-tree-diff .diff-file[data-file="src/app.js"] .diff-add');
    expect(await texts(page, ".phase-tree-diff .diff-add")).toEqual(['+export const app = "fixed";\n']);
    await screenshot(page, "review-fix-phase");
    await page.close();
    expect(errors).toEqual([]);
  });

  it("says a finished code phase called no agent instead of 'no tool calls yet'", async () => {
    const { page, errors } = await open(`#/run/${fixed}/phase/${phase(fixed, 3)}`);
    await page.waitForSelector(".no-tool-calls");
    expect(await page.$eval(".no-tool-calls", (el) => el.textContent)).toBe(
      "No tool calls: a code phase calls no agent (its events say what it did).",
    );
    expect(await page.$eval("body", (el) => el.textContent ?? "")).not.toContain("yet");
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe("two attempts side by side", () => {
  it("compares the two runs' diffs and final envelopes", async () => {
    const { page, errors } = await open(`#/compare/${fixed}/${exhausted}`);
    // Each side loads on its own: wait for both.
    for (const adwId of [fixed, exhausted]) {
      await page.waitForSelector(`.compare-diffs .side[data-adw-id="${adwId}"] .diff-file`);
      await page.waitForSelector(`.compare-envelopes .side[data-adw-id="${adwId}"] .json`);
    }
    expect(await texts(page, ".compare-diffs .side h3")).toEqual([fixed, exhausted]);
    const diffs = await page.$$eval(".compare-diffs .side", (sides) =>
      sides.map((side) => [...side.querySelectorAll(".diff-add")].map((l) => l.textContent)),
    );
    expect(diffs[0]).toContain('+export const app = "fixed";\n');
    expect(diffs[1]).toContain('+export const app = "still broken 2";\n');
    const envelopes = await texts(page, ".compare-envelopes .side .json pre");
    expect(envelopes).toHaveLength(2);
    expect(JSON.parse(envelopes[0] ?? "")).toMatchObject({ suite: "test", passed: true });
    expect(JSON.parse(envelopes[1] ?? "")).toMatchObject({ suite: "test", passed: false, exit_code: 1 });
    // Pretty-printed: one field a line.
    expect(envelopes[0]).toContain('\n  "suite": "test",\n');
    expect(await texts(page, ".compare-envelopes .envelope-source")).toEqual([
      "VerifyOutput of test · accepted",
      "VerifyOutput of test · valid",
    ]);
    await screenshot(page, "review-compare");
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe("how far the base moved", () => {
  it("says whether the failed run's work still merges, and names the conflict once main moved", async () => {
    const first = await open(`#/run/${exhausted}`);
    await first.page.waitForSelector(".base-drift");
    expect(await first.page.$eval(".base-drift", (el) => el.textContent)).toBe(
      "Base: main has not moved since the run started: its work applies as it is",
    );
    await first.page.close();
    writeFileSync(path.join(world.dir, "src/app.js"), 'export const app = "operator";\n');
    git(world.dir, ["commit", "-q", "-am", "the operator changes the app"]);
    const { page, errors } = await open(`#/run/${exhausted}`);
    await page.waitForSelector('.base-drift[data-behind="1"]');
    expect(await page.$eval(".base-drift", (el) => el.textContent)).toBe(
      "Base: main has gained 1 commit since the run started: merging its work would conflict in src/app.js",
    );
    await screenshot(page, "review-base-drift");
    await page.close();
    expect(errors).toEqual([...first.errors]);
  });
});
