/**
 * The reviewer's views on seeded traces, in the shipped headless Chromium: a suite phase's per-test
 * results (from a VerifyOutput that carries `failed_tests`, `pre_existing_failures`, `fixed_tests` and
 * `tests`: the three lists and the counts; from an older one, the exit code and tail as before), and a
 * run failing while the sessions list is open getting its failure label live.
 */
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningUiServer, startUiServer } from "../../src/ui/server/start-server.js";
import { repoRoot } from "../helpers/sandbox.js";
import { at, eventRow, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import { HOSTILE } from "./browser-features-seed.js";
import { launchBrowser, openPage, screenshot } from "./browser-fixture.js";
import { BASE, envelope } from "./feature-fixtures.js";
import { TraceWorld } from "./ui-fixtures.js";

const ADW = "tests001";
let browser: Browser;
let world: TraceWorld;
let server: RunningUiServer;

const verify = (extra: Record<string, unknown>) => ({
  status: "fail",
  summary: "test: failed (exit 1)",
  suite: "test",
  command: ["npx", "vitest", "run"],
  exit_code: 1,
  passed: false,
  duration_ms: 4200,
  output_tail: "FAIL test/math.test.ts > adds\n",
  ...extra,
});

beforeAll(async () => {
  world = await TraceWorld.open();
  const old = phaseRow(ADW, 1, at(BASE, 1000), {
    name: "test",
    kind: "code",
    owner: "quality",
    status: "fail",
  });
  const now = phaseRow(ADW, 2, at(BASE, 9000), {
    name: "test",
    kind: "code",
    owner: "quality",
    status: "fail",
  });
  world.write(
    {
      table: "sessions",
      row: sessionRow(ADW, at(BASE, 0), {
        workflow: "build-test",
        status: "fail",
        ended_at: at(BASE, 14_000),
        duration_ms: 14_000,
      }),
    },
    { table: "phases", row: old },
    { table: "phases", row: now },
    { table: "envelopes", row: envelope(ADW, "env-old", old.id, "VerifyOutput", verify({}), at(BASE, 2000)) },
    {
      table: "envelopes",
      row: envelope(
        ADW,
        "env-new",
        now.id,
        "VerifyOutput",
        verify({
          tests: { total: 12, passed: 9, failed: 2, skipped: 1 },
          failed_tests: [
            { name: "math > adds", file: "test/math.test.ts", message: "expected 3 to be 4" },
            { name: `renders ${HOSTILE}`, file: "test/view.test.ts" },
          ],
          pre_existing_failures: [
            { name: "slow > times out", file: "test/slow.test.ts", message: "timeout" },
          ],
          fixed_tests: [{ name: "parse > trims", file: "test/parse.test.ts" }],
          tests_omitted: { failed_tests: 0, pre_existing_failures: 250, fixed_tests: 0 },
        }),
        at(BASE, 10_000),
      ),
    },
  );
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
  page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ""));

describe("tests failed before, now and fixed", () => {
  it("lists each kind with its tests and the counts, inertly", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}#/run/${ADW}/phase/ph_${ADW}_2`);
    await page.waitForSelector(".suite-tests");
    expect(await page.$eval(".test-counts", (el) => el.textContent)).toBe(
      "12 tests: 9 passed, 2 failed, 1 skipped",
    );
    expect(await texts(page, ".test-list h4")).toEqual([
      "Fail now, because of the change (2)",
      "Failed before the change (pre-existing, not counted) (251)",
      "Fixed (failed before, pass now) (1)",
    ]);
    expect(await texts(page, '.test-list[data-kind="failed"] .test-name')).toEqual([
      "math > adds",
      `renders ${HOSTILE}`,
    ]);
    expect(await texts(page, '.test-list[data-kind="failed"] .test-message')).toEqual(["expected 3 to be 4"]);
    expect(await texts(page, '.test-list[data-kind="pre-existing"] li')).toEqual([
      "slow > times out test/slow.test.tstimeout",
    ]);
    expect(await texts(page, '.test-list[data-kind="fixed"] .test-name')).toEqual(["parse > trims"]);
    // A list cut at 200 entries says how many it left out; the others say nothing.
    expect(await texts(page, ".test-list p.muted")).toEqual([
      "… and 250 more, listed in the suite's tests file",
    ]);
    expect(
      await page.evaluate(`({ pwned: window.__pwned, imgs: document.querySelectorAll("img").length })`),
    ).toEqual({ pwned: undefined, imgs: 0 });
    await screenshot(page, "review-suite-tests");
    await page.close();
    expect(errors).toEqual([]);
  });

  it("shows an older envelope's exit code and tail, with no per-test section", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}#/run/${ADW}/phase/ph_${ADW}_1`);
    await page.waitForSelector(".suite.failed");
    expect(await page.$eval(".suite", (el) => el.textContent ?? "")).toContain("test failed · exit 1");
    expect(await page.$eval(".suite-tail pre", (el) => el.textContent)).toBe(
      "FAIL test/math.test.ts > adds\n",
    );
    expect(await page.$$(".suite-tests")).toHaveLength(0);
    await page.close();
    expect(errors).toEqual([]);
  });
});

describe("a run that fails while the list is open", () => {
  it("gets its failure label live, without a reload", async () => {
    const id = "live0001";
    world.write({
      table: "sessions",
      row: sessionRow(id, new Date().toISOString(), { request: "crash soon" }),
    });
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}#/`);
    await page.waitForSelector(`tr[data-adw-id="${id}"] .badge-running`);
    expect(await page.$$(`tr[data-adw-id="${id}"] .outcome`)).toHaveLength(0);
    const reason = "TypeError: boom";
    world.write(
      {
        table: "sessions",
        row: sessionRow(id, at(BASE, 0), { request: "crash soon", status: "fail", accepted: 0, reason }),
      },
      {
        table: "events",
        row: eventRow(id, `${id}-err`, at(BASE, 10), {
          type: "error",
          name: reason,
          ok: 0,
          payload: JSON.stringify({ error: reason, stack: "at boom" }),
        }),
      },
    );
    await page.waitForSelector(`tr[data-adw-id="${id}"] .outcome`);
    expect(
      await page.$eval(`tr[data-adw-id="${id}"] .outcome`, (el) => [
        el.textContent,
        el.getAttribute("title"),
      ]),
    ).toEqual(["crashed", reason]);
    await page.close();
    expect(errors).toEqual([]);
  });
});
