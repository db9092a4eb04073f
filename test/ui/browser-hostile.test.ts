import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, Sandbox } from "../helpers/sandbox.js";
import { launchBrowser, openPage, startUi, type UiProcess, until } from "./browser-fixture.js";

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

// Each payload sets window.__pwned (or opens a dialog) if it ever runs.
const payload = (where: string) =>
  `<script>window.__pwned="${where}"</script><img src=x onerror="window.__pwned='${where}';alert('${where}')">` +
  `<a href="javascript:window.__pwned='${where}'">click ${where}</a> [md ${where}](javascript:alert(1)) <svg onload=alert(2)>`;

const REQUEST = payload("request");
const TOOL_RESULT = payload("tool-result");
const TOOL_ARG = payload("tool-arg");
const RAW_REPLY = payload("raw-reply");
const SUMMARY = payload("envelope");

async function assertInert(page: Page, dialogs: string[]): Promise<void> {
  expect(dialogs).toEqual([]);
  // Evaluated as text: the tests are compiled without the DOM library.
  const state = await page.evaluate(`({
    pwned: window.__pwned,
    injected: document.querySelectorAll("img, svg, iframe, object, embed, a[href^='javascript' i]").length,
    inlineScripts: document.querySelectorAll("script:not([src])").length,
  })`);
  expect(state).toEqual({ pwned: undefined, injected: 0, inlineScripts: 0 });
}

describe("hostile text in the trace", () => {
  it("shows script, event-handler and javascript: payloads literally and runs none of them", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [
              { tool: "bash", name: payload("tool-name"), args: { command: TOOL_ARG }, result: TOOL_RESULT },
            ],
            reply: RAW_REPLY,
          },
          { reply: JSON.stringify({ status: "fail", summary: SUMMARY }) },
        ],
      },
    ]);
    // The agent by name: its own user prompt (`### prompt`) carries the request.
    const result = await sb.run(["run", "prompt", REQUEST, "--agent", "assistant"]);
    expect(result.code).toBe(1);
    const adwId = adwIdFrom(result.stdout);
    ui = await startUi(sb);
    const { page, dialogs, errors } = await openPage(browser);

    await page.goto(ui.url);
    await page.waitForSelector(`tr[data-adw-id="${adwId}"]`);
    expect(await page.$eval(`tr[data-adw-id="${adwId}"] .request a`, (a) => a.getAttribute("title"))).toBe(
      REQUEST,
    );
    await assertInert(page, dialogs);

    await page.click(`tr[data-adw-id="${adwId}"] .request a`);
    await page.waitForSelector(".waterfall[data-ready]");
    expect(await page.$eval(".request-text pre", (el) => el.textContent)).toBe(REQUEST);
    expect(await page.$eval(".run-header", (el) => el.textContent)).toContain(SUMMARY);
    await assertInert(page, dialogs);

    await page.click(`.wf-bar[data-phase-id="${adwId}-p02"]`);
    await page.waitForSelector(".phase-detail[data-ready]");
    await page.$$eval("details", (folds) => {
      for (const fold of folds) fold.setAttribute("open", "");
    });
    const expected = {
      "tool result": TOOL_RESULT,
      "tool argument": JSON.stringify(TOOL_ARG).slice(1, -1),
      "invalid raw reply": RAW_REPLY,
      envelope: JSON.stringify(SUMMARY).slice(1, -1),
      "the prompt sent": `### prompt\n\n${REQUEST}`,
    };
    // Opened folds render their text on the next frame.
    const texts = await until(
      () => page.$$eval(".phase-detail pre", (blocks) => blocks.map((b) => b.textContent ?? "")),
      (blocks) => Object.values(expected).every((text) => blocks.some((b) => b.includes(text))),
      "every hostile payload shown as text",
    );
    for (const [what, text] of Object.entries(expected)) {
      expect(
        texts.some((t) => t.includes(text)),
        what,
      ).toBe(true);
    }
    expect(await page.$eval(".problems", (el) => el.textContent)).toContain(SUMMARY);
    expect(await page.$eval(".tool-name", (el) => el.textContent)).toContain(payload("tool-name"));

    // Clicking the rendered "links" navigates nowhere: they are text.
    await page.getByText("click tool-result").first().click();
    await assertInert(page, dialogs);
    expect(errors).toEqual([]);
  });
});
