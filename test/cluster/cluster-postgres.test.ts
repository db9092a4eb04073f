import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import type { TraceRecord } from "../../src/trace/events.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { git } from "../worktree/worktree-world.js";
import { ClusterWorld, pollUntil, sharedRestate } from "./cluster-world.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await world?.cleanup();
  await database?.drop();
  world = undefined;
  database = undefined;
});

/**
 * Every record the workers' session files hold for `adwId`, per table and key, the last write of each:
 * the files of `earlier` (the killed worker) are read first, the worker that took over wrote after it.
 */
function sessionFileRows(
  scratch: string,
  adwId: string,
  earlier: string,
): Map<string, Map<string, TraceRecord>> {
  const byTable = new Map<string, Map<string, TraceRecord>>();
  const workers = readdirSync(scratch).filter((name) => name.startsWith("worker-"));
  workers.sort((a, b) => Number(b === earlier) - Number(a === earlier));
  for (const worker of workers) {
    const file = path.join(scratch, worker, "sessions", adwId, "events.jsonl");
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line === "") continue;
      const record = JSON.parse(line) as TraceRecord;
      const row = record.row as unknown as Record<string, unknown>;
      const key =
        record.table === "agent_sessions"
          ? `${String(row.adw_id)}/${String(row.agent)}`
          : String(record.table === "sessions" ? row.adw_id : row.id);
      if (!byTable.has(record.table)) byTable.set(record.table, new Map());
      byTable.get(record.table)?.set(key, record);
    }
  }
  return byTable;
}

const waitFor = (check: () => boolean | Promise<boolean>, ms?: number) => pollUntil(check, () => "", ms);

describePostgres("a cluster writing one PostgreSQL trace", () => {
  it("kill -9 of a worker mid-phase: the run completes on another, and PostgreSQL holds every event both workers wrote", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      {
        first: [writeTurn("notes.md", "planned")],
        second: [{ delay_ms: 120_000, reply: "{}" }, writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate, trace: database.url },
    );
    await world.start(3);
    const adwId = "0e0e0e0e";
    const follow = world.cli(["run", "three", "add a feature", "--engine", "restate", "--adw-id", adwId]);
    const first = await Promise.race([
      world.workerRunning(adwId),
      follow.then((ended) => {
        throw new Error(
          `the run ended before a worker ran it: ${ended.stdout}\n${ended.stderr}\n${world?.logs()}`,
        );
      }),
    ]);
    await waitFor(() => world?.sends("second") === 1);
    // Events reach PostgreSQL in about one transaction a second per run (docs/cluster.md): once the
    // database caught up with the worker's file, a kill -9 loses none of them.
    const eventIds = async (): Promise<string[]> =>
      (
        await (database as TestDatabase).query<{ id: string }>("SELECT id FROM events WHERE adw_id = $1", [
          adwId,
        ])
      ).map((e) => e.id);
    await waitFor(async () => {
      const written = [
        ...(sessionFileRows(world?.scratch ?? "", adwId, first.name)
          .get("events")
          ?.keys() ?? []),
      ];
      const stored = new Set(await eventIds());
      return written.length > 0 && written.every((id) => stored.has(id));
    }, 10_000);
    await first.kill("SIGKILL");
    const followed = await follow;
    expect(followed.code, `${followed.stdout}\n${followed.stderr}\n${world.logs()}`).toBe(0);
    expect(followed.stdout).toMatch(/takes it over/);
    expect(await world.tracePhases(adwId)).toEqual([
      "one:success+r",
      "two:interrupted",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    expect(world.sends("first")).toBe(1);
    expect(world.sends("second")).toBe(2);
    expect(git(world.remote, ["show", `sssf/three/${adwId}:src/feature.js`])).toBe("built\n");
    // What ran, by the session files of both workers, is what the database holds.
    const files = sessionFileRows(world.scratch, adwId, first.name);
    const events = await database.query<{ id: string; type: string; name: string | null }>(
      "SELECT id, type, name FROM events WHERE adw_id = $1",
      [adwId],
    );
    const inFiles = [...(files.get("events")?.keys() ?? [])];
    const inDb = events.map((e) => e.id);
    expect(inFiles.length).toBeGreaterThan(20);
    expect({
      onlyInDb: inDb.filter((id) => !inFiles.includes(id)),
      onlyInFiles: inFiles.filter((id) => !inDb.includes(id)),
    }).toEqual({ onlyInDb: [], onlyInFiles: [] });
    const phases = await database.query<{ id: string; status: string }>(
      "SELECT id, status FROM phases WHERE adw_id = $1",
      [adwId],
    );
    expect(phases.map((p) => p.id).sort()).toEqual([...(files.get("phases")?.keys() ?? [])].sort());
    for (const phase of phases) {
      const written = files.get("phases")?.get(phase.id)?.row as unknown as { status: string };
      expect(phase.status).toBe(written.status);
    }
    expect(events.filter((e) => e.type === "error" && /takes it over/.test(e.name ?? ""))).toHaveLength(1);
    const [session] = await database.query<{ status: string; accepted: string }>(
      "SELECT status, accepted FROM sessions WHERE adw_id = $1",
      [adwId],
    );
    expect(session).toEqual({ status: "success", accepted: "1" });
    // The killed worker is listed as gone, with the run it was running, not as running it still.
    const workers = await world.cli(["workers"]);
    const line = workers.stdout.split("\n").find((l) => / gone /.test(l));
    expect(line, workers.stdout).toMatch(new RegExp(` gone .* was running ${adwId} three `));
    expect(workers.stdout).not.toMatch(/gone .* slots/);
  });

  it("the database out of reach for 3 s mid-phase: the worker retries, the run completes, no event is lost", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        // Long enough for the outage to fall inside the phase.
        second: [{ delay_ms: 5_000, ...writeTurn("src/feature.js", "built") }],
        third: [replyTurn("reviewed")],
      },
      { restate, trace: database.url },
    );
    await world.start(1);
    const adwId = "0d0d0d0d";
    const follow = world.cli(["run", "three", "add a feature", "--engine", "restate", "--adw-id", adwId]);
    await waitFor(
      async () =>
        (await world?.rows("SELECT 1 FROM phases WHERE adw_id = ? AND name = 'two'", adwId))?.length === 1,
    );
    await database.outage(3_000);
    const followed = await follow;
    expect(followed.code, `${followed.stdout}\n${followed.stderr}\n${world.logs()}`).toBe(0);
    expect(await world.tracePhases(adwId)).toEqual([
      "one:success",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    // One attempt only: the outage cost no phase.
    expect(world.sends("second")).toBe(1);
    const files = sessionFileRows(world.scratch, adwId, "");
    const events = await database.query<{ id: string }>("SELECT id FROM events WHERE adw_id = $1", [adwId]);
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(files.get("events")?.keys()));
    expect(events.length).toBeGreaterThan(10);
  });
});
