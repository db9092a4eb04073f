import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TRACE_TABLES, type TraceTable } from "../../src/trace/events.js";
import { openSqliteStore } from "../../src/trace/sqlite/sqlite-store.js";
import { readTable } from "../../src/trace/store-queries.js";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

async function dumpAll(dbPath: string): Promise<Record<TraceTable, unknown[]>> {
  const db = openSqliteStore(dbPath, { readonly: true });
  try {
    const tables = await Promise.all(TRACE_TABLES.map(async (t) => [t, await readTable(db, t)]));
    return Object.fromEntries(tables) as Record<TraceTable, unknown[]>;
  } finally {
    await db.close();
  }
}

function setupTwoRuns() {
  sb.setup([
    {
      name: "assistant",
      turns: [
        {
          tool_calls: [
            { tool: "bash", args: { command: "ls -la" }, result: "total 0", duration_ms: 3 },
            { tool: "write", args: { path: "a.md" }, write_file: { path: "a.md", content: "a" } },
          ],
          reply: "oops not json",
          usage: { input_tokens: 10, output_tokens: 5, cost: 0.001 },
        },
        { reply: envelopeJson({ summary: "first run", artifacts: ["a.md"] }) },
        { reply: JSON.stringify({ status: "fail", summary: "second run failed" }) },
      ],
    },
  ]);
}

describe("trace commands", () => {
  it("sssf db rebuild recreates a database equal to the original, table by table", async () => {
    setupTwoRuns();
    expect((await sb.run(["run", "prompt", "one"])).code).toBe(0);
    expect((await sb.run(["run", "prompt", "two"])).code).toBe(1);
    const dbPath = path.join(sb.dir, "adws/adw_data/sssf.db");
    const before = await dumpAll(dbPath);
    expect(before.events.length).toBeGreaterThan(10);
    expect(before.gate_results.length).toBeGreaterThan(0);
    const rebuilt = await sb.run(["db", "rebuild"]);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/rebuilt .* from 2 session\(s\)/);
    expect(await dumpAll(dbPath)).toEqual(before);
    expect(readdirSync(path.dirname(dbPath)).some((f) => f.startsWith("sssf.db.bak-"))).toBe(true);
  });

  it("lists sessions, phases, events and envelopes as tables and as JSON", async () => {
    setupTwoRuns();
    const one = await sb.run(["run", "prompt", "one"]);
    const adwId = adwIdFrom(one.stdout);
    await sb.run(["run", "prompt", "two"]);

    const sessions = JSON.parse((await sb.run(["sessions", "--json"])).stdout);
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s: { status: string }) => s.status).sort()).toEqual(["fail", "success"]);
    const table = (await sb.run(["sessions"])).stdout;
    expect(table).toMatch(/^ADW_ID\s+STATUS\s+WORKFLOW/);
    expect(table).toContain(adwId);

    const phases = JSON.parse((await sb.run(["phases", adwId, "--json"])).stdout);
    expect(phases.map((p: { name: string }) => p.name)).toEqual(["request", "prompt"]);

    const tools = JSON.parse((await sb.run(["events", adwId, "--json", "--type", "tool_call"])).stdout);
    expect(tools.map((e: { name: string }) => e.name)).toEqual(["bash: ls -la", "write: a.md"]);
    expect(tools.every((e: { parent_id: string | null }) => e.parent_id !== null)).toBe(true);
    // Payloads are objects, not JSON strings inside the JSON.
    expect(
      tools.every((e: { payload: unknown }) => typeof e.payload === "object" && e.payload !== null),
    ).toBe(true);

    const envelopes = JSON.parse((await sb.run(["envelopes", adwId, "--json"])).stdout);
    expect(envelopes.map((e: { valid: number }) => e.valid)).toEqual([0, 1]);
    expect((await sb.run(["envelopes", adwId])).stdout).toContain("json_fix");

    const missing = await sb.run(["phases", "ffffffff"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no session ffffffff");
    const badType = await sb.run(["events", adwId, "--type", "nope"]);
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain("--type");
  });

  it("says where the database should be when there is none", async () => {
    const result = await sb.run(["sessions"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no trace database");
    expect(existsSync(path.join(sb.dir, "adws"))).toBe(false);
  });
});

describe("joining a session whose database record is gone", () => {
  it("refuses and points to sssf db rebuild; after the rebuild the join continues the numbering", async () => {
    const { rmSync } = await import("node:fs");
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: envelopeJson({ summary: "one" }) }, { reply: envelopeJson({ summary: "two" }) }],
      },
    ]);
    const first = await sb.run(["run", "prompt", "one"]);
    const adwId = adwIdFrom(first.stdout);
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(path.join(sb.dir, `adws/adw_data/sssf.db${suffix}`), { force: true });
    const refused = await sb.run(["run", "prompt", "two", "--adw-id", adwId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("sssf db rebuild");
    expect((await sb.run(["db", "rebuild"])).code).toBe(0);
    const joined = await sb.run(["run", "prompt", "two", "--adw-id", adwId]);
    expect(joined.code).toBe(0);
    const phases = JSON.parse((await sb.run(["phases", adwId, "--json"])).stdout);
    expect(phases.map((p: { number: number }) => p.number)).toEqual([1, 2, 3, 4]);
  });
});
