/**
 * The trace the browser feature tests share: a finished build run with a branch, commits, a saved diff
 * and a failed suite; a second build run to compare with; a running agent phase streaming text; and a
 * running engineer phase about to ask.
 */
import type { TraceRecord } from "../../src/trace/events.js";
import { at, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import { liveEvent, makeRepo, seedBuildRun } from "./feature-fixtures.js";
import type { TraceWorld } from "./ui-fixtures.js";

export const BUILD = "feat0001";
export const OTHER = "feat0002";
export const LIVE = "feat0003";
export const WAIT = "feat0004";
export const LIVE_PHASE = `ph_${LIVE}_1`;
export const WAIT_PHASE = `ph_${WAIT}_2`;
export const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

/** Seeds the trace every browser feature test reads, and returns the build run's repository. */
export function seedFeatures(world: TraceWorld): ReturnType<typeof makeRepo> {
  const repo = makeRepo(world.dir, BUILD);
  seedBuildRun(world, BUILD, repo);
  const day2 = Date.parse("2026-05-02T12:00:00Z");
  const records: TraceRecord[] = [
    {
      table: "sessions",
      row: sessionRow(OTHER, at(day2, 0), {
        workflow: "build",
        request: "change b again",
        status: "success",
        ended_at: at(day2, 30_000),
        duration_ms: 30_000,
        input_tokens: 30_000,
        output_tokens: 2000,
        cost_usd: 0.4,
      }),
    },
    {
      table: "phases",
      row: phaseRow(OTHER, 1, at(day2, 1), {
        name: "build",
        status: "success",
        duration_ms: 25_000,
        ended_at: at(day2, 25_001),
        input_tokens: 30_000,
        output_tokens: 2000,
        cost_usd: 0.4,
      }),
    },
    {
      table: "phases",
      row: phaseRow(OTHER, 2, at(day2, 26_000), {
        name: "review",
        owner: "reviewer",
        status: "success",
        duration_ms: 3000,
      }),
    },
    {
      table: "phases",
      row: phaseRow(OTHER, 3, at(day2, 29_000), {
        name: "test",
        kind: "code",
        owner: "code",
        status: "success",
        duration_ms: 900,
      }),
    },
    {
      table: "sessions",
      row: sessionRow(LIVE, new Date(Date.now() - 5000).toISOString(), {
        workflow: "plan",
        request: "stream",
      }),
    },
    {
      table: "phases",
      row: phaseRow(LIVE, 1, new Date(Date.now() - 4000).toISOString(), { name: "plan", owner: "planner" }),
    },
    {
      table: "events",
      row: liveEvent(
        LIVE,
        "lt1",
        at(Date.now(), -3000),
        "agent_text",
        { text: "Reading the repository layout." },
        LIVE_PHASE,
      ),
    },
    {
      table: "events",
      row: liveEvent(
        LIVE,
        "lt2",
        at(Date.now(), -2000),
        "tool_start",
        { tool: "bash", args: { command: `npm test ${HOSTILE}` } },
        LIVE_PHASE,
      ),
    },
    {
      table: "sessions",
      row: sessionRow(WAIT, new Date(Date.now() - 5000).toISOString(), {
        workflow: "plan-build",
        request: "plan then build",
      }),
    },
    {
      table: "phases",
      row: phaseRow(WAIT, 1, at(Date.now(), -4000), {
        name: "plan",
        owner: "planner",
        status: "success",
        duration_ms: 1000,
        ended_at: at(Date.now(), -3000),
      }),
    },
    {
      table: "phases",
      row: phaseRow(WAIT, 2, at(Date.now(), -2000), {
        name: "approve-plan",
        kind: "engineer",
        owner: "engineer",
      }),
    },
  ];
  world.write(...records);
  return repo;
}
