import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { chromiumBinary } from "../helpers/chromium.js";
import { type CliResult, collect, repoRoot, type Sandbox } from "../helpers/sandbox.js";

/** Where the screenshots of the three views go. */
export const ARTIFACTS = path.join(repoRoot, "test-artifacts", "ui");

/** Launches headless chromium: the one shipped in a dev dependency, or SSSF_CHROMIUM (docs/testing.md). */
export async function launchBrowser(): Promise<Browser> {
  const { executablePath, args, env } = await chromiumBinary();
  return chromium.launch({ executablePath, args, ...(env ? { env } : {}) });
}

/** A running `sssf ui` started by the built CLI in a sandbox. */
export interface UiProcess {
  url: string;
  child: ChildProcess;
  /** Ctrl-C, then the exit status and output. */
  stop(): Promise<CliResult>;
}

/** Starts `sssf ui --port 0` in the sandbox and resolves with the URL it prints. */
export function startUi(sb: Sandbox, args: string[] = []): Promise<UiProcess> {
  const child = sb.start(["ui", "--port", "0", ...args]);
  const done = collect(child);
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /sssf ui: (http:\/\/\S+)/.exec(out);
      if (!match?.[1]) return;
      child.stdout?.off("data", onData);
      resolve({
        url: match[1],
        child,
        stop: () => {
          child.kill("SIGINT");
          return done;
        },
      });
    };
    child.stdout?.on("data", onData);
    done.then((result) => reject(new Error(`sssf ui exited ${result.code}: ${result.stderr}`)), reject);
  });
}

/** A page that fails the test on any uncaught page error, and records every dialog it dismisses. */
export async function openPage(
  browser: Browser,
): Promise<{ page: Page; dialogs: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Four test files share two cores: give every wait the suite's room rather than playwright's 30 s.
  page.setDefaultTimeout(90_000);
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, dialogs, errors };
}

/** Saves a full-page screenshot as test-artifacts/ui/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Polls `read` until `accept` holds, returning the last value; throws after `timeoutMs`. */
export async function until<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
