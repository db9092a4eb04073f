/**
 * The Merge button on an accepted run's page, in the shipped headless Chromium against `sssf ui` of the
 * built CLI: what would land is shown first, a POST from a foreign Origin is refused, the click lands
 * the branch and the result stays on the page.
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import { buildTurn, git, WorktreeWorld } from "../worktree/worktree-world.js";
import { launchBrowser, openPage, screenshot, startUi, type UiProcess } from "./browser-fixture.js";
import { rawRequest } from "./raw-http.js";

let browser: Browser;
let world: WorktreeWorld | undefined;
let ui: UiProcess | null = null;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());
afterEach(async () => {
  await ui?.stop();
  ui = null;
  world?.cleanup();
  world = undefined;
});

describe("the Merge button", () => {
  it("shows what would land, refuses a foreign Origin, and merges an accepted run on click", async () => {
    const w = new WorktreeWorld([buildTurn()]);
    world = w;
    const result = await w.run(["run", "build", "add the feature"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const branch = `sssf/build/${adwId}`;
    const tip = git(w.dir, ["rev-parse", branch]).trim();
    ui = await startUi(w.sb);
    const port = Number(new URL(ui.url).port);
    const host = new URL(ui.url).host;

    // The same POST the button sends, from another site: refused, nothing moves.
    const foreign = await rawRequest({
      port,
      method: "POST",
      path: `/api/sessions/${adwId}/merge`,
      headers: [
        ["Host", host],
        ["Origin", "http://evil.example"],
        ["Content-Type", "application/json"],
      ],
      body: "{}",
    });
    expect(foreign.status).toBe(403);
    expect(git(w.dir, ["rev-parse", "main"]).trim()).toBe(w.base);

    const { page, errors } = await openPage(browser);
    await page.goto(`${ui.url}#/run/${adwId}`);
    await page.waitForSelector(".merge-panel button.merge:not([disabled])");
    const look = await page.$eval(".merge-look", (el) => el.textContent);
    expect(look).toBe(`1 commit, 2 files from ${branch} into main · main has not moved: a fast-forward`);
    expect(await page.$eval(".merge-panel button.merge", (el) => el.textContent)).toBe("Merge into main");

    await page.click(".merge-panel button.merge");
    await page.waitForSelector(".merge-done");
    const done = await page.$eval(".merge-done", (el) => el.textContent);
    expect(done).toBe(
      `merged ${branch} into main (fast-forward): 1 commit, 2 files; main is now at ${tip.slice(0, 12)}`,
    );
    expect(git(w.dir, ["rev-parse", "main"]).trim()).toBe(tip);
    await screenshot(page, "run-merged");

    // Once landed, a second merge is refused with its reason.
    const again = await rawRequest({
      port,
      method: "POST",
      path: `/api/sessions/${adwId}/merge`,
      headers: [
        ["Host", host],
        ["Origin", `http://${host}`],
        ["Content-Type", "application/json"],
      ],
      body: "{}",
    });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).error).toBe(
      `nothing to merge: main already holds every commit of ${branch}`,
    );
    expect(errors).toEqual([]);
  });
});
