import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { openTraceStore } from "../../src/trace/open-store.js";
import { listSessions, listSessionsJson } from "../../src/trace/store-queries.js";
import { Tracer } from "../../src/trace/tracer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("listSessionsJson returns exactly the rows of listSessions, in order, with the same types", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-json-"));
  dirs.push(dir);
  const store = await openTraceStore(path.join(dir, "sssf.db"));
  const tracer = new Tracer({ store, eventsFile: path.join(dir, "events.jsonl") });
  for (let i = 0; i < 30; i++) {
    tracer.write({
      table: "sessions",
      row: {
        adw_id: `s${String(i).padStart(3, "0")}`,
        workflow: "prompt",
        request: `ask "${i}" with \\ and \n newline`,
        status: i % 3 === 0 ? "fail" : "success",
        accepted: i % 5 === 0 ? null : 1,
        reason: i % 2 ? null : "why",
        cwd: "/r",
        started_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        ended_at: null,
        duration_ms: i % 4 ? 1000 + i : null,
        input_tokens: i,
        output_tokens: 2 * i,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: i / 7,
        archived: i % 10 === 0 ? 1 : 0,
        worktree: i % 2 ? `/r/adws/adw_data/.worktrees/s${i}` : null,
        branch: i % 2 ? `sssf/s${i}` : null,
        base_ref: i % 2 ? "0123456789abcdef0123456789abcdef01234567" : null,
        checkout: "/r",
        pid: null,
        host: null,
      },
    });
  }
  await tracer.close();
  for (const options of [{}, { limit: 5 }, { includeArchived: true }, { status: "fail" as const }]) {
    expect(JSON.parse(await listSessionsJson(store, options))).toEqual(await listSessions(store, options));
  }
  await store.close();
});
