import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { upsertPlan } from "../../src/trace/upsert-plan.js";
import { createUiApp, type UiApp } from "../../src/ui/server/app.js";
import { openRawSqlite, type RawSqlite } from "../helpers/raw-sqlite.js";

/**
 * A temp folder with a trace database (made by the store) and a sessions folder, and a plain
 * connection that plants rows in it as another process's tracer would.
 */
export class TraceWorld {
  readonly #apps: UiApp[] = [];

  private constructor(
    readonly dir: string,
    readonly dbPath: string,
    readonly sessionsDir: string,
    readonly db: RawSqlite,
  ) {}

  static async open(): Promise<TraceWorld> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sssf-ui-"));
    const dbPath = path.join(dir, "sssf.db");
    const sessionsDir = path.join(dir, "sessions");
    mkdirSync(sessionsDir);
    await (await openTraceStore(dbPath)).close();
    return new TraceWorld(dir, dbPath, sessionsDir, openRawSqlite(dbPath));
  }

  /** Writes the records in one transaction, in the store's upsert statements, as the tracer does. */
  write(...records: TraceRecord[]): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      for (const { sql, values } of upsertPlan(records)) this.db.prepare(sql).run(...values);
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Saves a prompt file the way the engine does (`{agent}/prompts/{file}`). */
  prompt(adwId: string, agent: string, file: string, text: string): void {
    const dir = path.join(this.sessionsDir, adwId, agent, "prompts");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }

  /** A UI app over this trace; closed by {@link cleanup}. */
  async app(options: { clientDir?: string; colors?: Record<string, string> } = {}): Promise<UiApp> {
    const ui = await createUiApp({
      dbPath: this.dbPath,
      sessionsDir: this.sessionsDir,
      scheme: { colors: options.colors ?? {}, palette: ["#111111", "#222222"] },
      clientDir: options.clientDir ?? path.join(this.dir, "no-client"),
      hub: { fallbackMs: 50 },
    });
    this.#apps.push(ui);
    return ui;
  }

  async cleanup(): Promise<void> {
    for (const ui of this.#apps) await ui.close();
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** JSON of a GET on the app, asserting the status. */
export async function getJson<T>(ui: UiApp, url: string, status = 200): Promise<T> {
  const response = await ui.app.request(url);
  if (response.status !== status) {
    throw new Error(`GET ${url}: expected ${status}, got ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as T;
}

/** Resolves once `predicate` holds, polling every 10 ms; rejects after `timeoutMs` with `what`. */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
