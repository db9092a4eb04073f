// A generated run for the UI benchmark: one session of 13 phases (engineer, code and three agents)
// holding `events` trace events, mostly tool calls, plus envelopes, gates and saved prompts.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openTraceStore } from "../dist/trace/index.js";

const AGENTS = ["planner", "builder", "reviewer"];
const USAGE = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 };

function plan() {
  const phases = [{ kind: "engineer", owner: "engineer", name: "request" }];
  for (let i = 0; i < 10; i++) phases.push({ kind: "agent", owner: AGENTS[i % 3], name: `step-${i + 1}` });
  phases.push(
    { kind: "code", owner: "code", name: "tests" },
    { kind: "engineer", owner: "engineer", name: "finish" },
  );
  return phases;
}

/**
 * Writes the run into `<dataDir>/sssf.db` (and prompt files under `<dataDir>/sessions`). Returns the
 * adw_id and the id of the agent phase with the most tool calls (the one the benchmark clicks).
 */
export async function seedRun(dataDir, { adwId = "bench050k", events = 50_000 } = {}) {
  const db = await openTraceStore(path.join(dataDir, "sssf.db"));
  const records = [];
  const upsert = (record) => records.push(record);
  const t0 = Date.parse("2026-06-01T09:00:00Z");
  const iso = (ms) => new Date(t0 + ms).toISOString();
  const phases = plan();
  const agentPhases = phases.filter((p) => p.kind === "agent").length;
  // Every phase writes a start and an end event; an agent phase also a send, its end and a gate.
  const calls = events - phases.length * 2 - agentPhases * 3;
  const perPhase = Math.floor(calls / agentPhases);
  let written = 0;
  let clock = 0;
  const event = (row) => {
    written += 1;
    upsert({
      table: "events",
      row: {
        parent_id: null,
        agent: null,
        ok: null,
        ended_at: row.started_at,
        duration_ms: 0,
        payload: "{}",
        ...row,
      },
    });
  };
  phases.forEach((p, index) => {
    const number = index + 1;
    const id = `${adwId}-p${String(number).padStart(2, "0")}`;
    const start = clock;
    event({
      id: `${id}-start`,
      adw_id: adwId,
      phase_id: id,
      type: "phase_start",
      name: p.name,
      started_at: iso(start),
    });
    if (p.kind === "agent") {
      const toolCalls = number === 2 ? perPhase + (calls % agentPhases) : perPhase;
      event({
        id: `${id}-send`,
        adw_id: adwId,
        phase_id: id,
        type: "agent_start",
        name: `${p.owner} call #1`,
        agent: p.owner,
        started_at: iso(start + 5),
        payload: JSON.stringify({ attempt: 1, reason: "initial" }),
      });
      for (let c = 0; c < toolCalls; c++) {
        clock += 7;
        event({
          id: `${id}-t${c}`,
          adw_id: adwId,
          phase_id: id,
          parent_id: `${id}-send`,
          type: "tool_call",
          agent: p.owner,
          ok: c % 50 === 0 ? 0 : 1,
          name: `bash: grep -rn "symbol_${c}" src/`,
          started_at: iso(clock),
          ended_at: iso(clock + 5),
          duration_ms: 5,
          payload: JSON.stringify({
            tool: "bash",
            args: { command: `grep -rn "symbol_${c}" src/` },
            result: `src/file_${c % 97}.ts:${c}: const symbol_${c} = ${c};`,
          }),
        });
      }
      event({
        id: `${id}-end-send`,
        adw_id: adwId,
        phase_id: id,
        type: "agent_end",
        name: `${p.owner} replied`,
        agent: p.owner,
        ok: 1,
        started_at: iso(clock + 10),
      });
      event({
        id: `${id}-gate`,
        adw_id: adwId,
        phase_id: id,
        type: "gate_pass",
        name: "artifactsExist: 2 checked",
        agent: p.owner,
        ok: 1,
        started_at: iso(clock + 12),
      });
      upsert({
        table: "envelopes",
        row: {
          id: `${id}-env`,
          adw_id: adwId,
          phase_id: id,
          agent: p.owner,
          attempt: 1,
          reason: "initial",
          output_type: "GenericOutput",
          valid: 1,
          status: "success",
          envelope_json: '{"status":"success","summary":"done"}',
          raw_text: '{"status":"success","summary":"done"}',
          errors: "[]",
          created_at: iso(clock + 11),
        },
      });
      const prompts = path.join(dataDir, "sessions", adwId, p.owner, "prompts");
      mkdirSync(prompts, { recursive: true });
      writeFileSync(
        path.join(prompts, `p${String(number).padStart(2, "0")}-${p.name}-1-initial.user.md`),
        `# Task\n\nDo ${p.name}.\n`,
      );
    }
    clock += 40;
    event({
      id: `${id}-end`,
      adw_id: adwId,
      phase_id: id,
      type: "phase_end",
      name: p.name,
      ok: 1,
      started_at: iso(clock),
    });
    upsert({
      table: "phases",
      row: {
        id,
        adw_id: adwId,
        number,
        name: p.name,
        kind: p.kind,
        owner: p.owner,
        description: `${p.name} phase`,
        status: "success",
        started_at: iso(start),
        ended_at: iso(clock),
        duration_ms: clock - start,
        error: null,
        ...USAGE,
        input_tokens: 20_000,
        output_tokens: 900,
        cost_usd: 0.03,
        context_tokens: 40_000,
      },
    });
  });
  upsert({
    table: "sessions",
    row: {
      adw_id: adwId,
      workflow: "plan-build-test",
      request: "a generated run of 50,000 events",
      status: "success",
      accepted: 1,
      reason: "done",
      cwd: dataDir,
      started_at: iso(0),
      ended_at: iso(clock),
      duration_ms: clock,
      ...USAGE,
      input_tokens: 200_000,
      output_tokens: 9_000,
      cost_usd: 0.3,
      archived: 0,
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
    },
  });
  for (const agent of AGENTS)
    upsert({
      table: "agent_sessions",
      row: {
        adw_id: adwId,
        agent,
        session_id: `s-${agent}`,
        model: "anthropic/claude-sonnet-4-5",
        coding_agent: "pi",
        sends: 4,
        created_at: iso(0),
        updated_at: iso(clock),
      },
    });
  await db.transaction((tx) => tx.upsert(records));
  await db.close();
  return { adwId, clickPhase: `${adwId}-p02`, events: written };
}
