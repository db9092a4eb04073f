/**
 * The reviewer's queries on a PostgreSQL trace (the UI reads either store): every failure kind
 * classified as on SQLite, the final envelope, and the checkpoints joined to their phases.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { readFinalEnvelope } from "../../src/ui/server/review/final-envelope.js";
import { readPhaseChanges } from "../../src/ui/server/review/phase-trees.js";
import { classifyRun } from "../../src/ui/server/review/run-outcome.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { at, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import { BASE } from "./feature-fixtures.js";
import { RUNS } from "./outcome-fixtures.js";

describePostgres("the reviewer's queries on PostgreSQL", () => {
  let database: TestDatabase;
  let store: TraceStore;
  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openTraceStore(database.url);
    await store.upsert(RUNS.flatMap(([, records]) => records));
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("classifies every failure kind from the same rows", async () => {
    for (const [adwId, , expected] of RUNS) {
      const session = (
        await store.all<{ reason: string }>("SELECT * FROM sessions WHERE adw_id = ?", [adwId])
      )[0];
      const outcome = await classifyRun(store, session as never);
      expect(outcome, adwId).toEqual({ adw_id: adwId, detail: session?.reason, ...expected });
    }
  });

  it("reads the final envelope and the checkpoints of a run", async () => {
    const adwId = "out00010";
    const session = (await store.all("SELECT * FROM sessions WHERE adw_id = ?", [adwId]))[0] as never;
    expect(await readFinalEnvelope(store, session)).toMatchObject({
      envelope_id: "out00010-review",
      phase: "review",
      standing: "accepted",
      envelope: { approved: false, blocking: ["tests missing"] },
    });
    const worktreeRun = sessionRow("pgwt0001", at(BASE, 0), {
      status: "fail",
      branch: "sssf/build/pgwt0001",
      base_ref: "a".repeat(40),
      checkout: "/nonexistent/checkout",
      cwd: "/nonexistent/checkout",
    });
    await store.upsert([
      { table: "sessions", row: worktreeRun },
      {
        table: "phases",
        row: {
          ...phaseRow("pgwt0001", 1, at(BASE, 5), { name: "build", status: "fail" }),
          id: "pgwt0001-p01",
        },
      },
      {
        table: "steps",
        row: {
          id: "pgwt0001-a1-p1.build.checkpoint#1",
          adw_id: "pgwt0001",
          attempt: 1,
          key: "p1.build.checkpoint#1",
          position: 1,
          phase_id: "pgwt0001-p01",
          op: "checkpoint",
          input_hash: "",
          result_json: JSON.stringify({ commit: "b".repeat(40), head: "a".repeat(40), branch: null }),
          replayed: 0,
          created_at: at(BASE, 10),
        },
      },
    ]);
    // The checkpoint is found (the join ran); its repository is not on this machine.
    expect(await readPhaseChanges(store, worktreeRun)).toEqual({
      phases: [],
      fix_vs_build: null,
      note: "the run's repository is gone",
    });
  });
});
