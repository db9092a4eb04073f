import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import type {
  AgentSessionRow,
  EnvelopeRow,
  EventRow,
  GateResultRow,
  PhaseRow,
  ProcessRow,
  SessionRow,
  TraceRecord,
} from "../../src/trace/events.js";

/** A fresh temp directory and its remover. */
export function makeTempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `sssf-trace-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A temp directory per test, removed after it; call at describe level, read inside the test. */
export function useTempDir(label: string): () => string {
  let current: { dir: string; remove: () => void } | undefined;
  beforeEach(() => {
    current = makeTempDir(label);
  });
  afterEach(() => {
    current?.remove();
    current = undefined;
  });
  return () => {
    if (current === undefined) throw new Error("useTempDir: read the directory inside a test");
    return current.dir;
  };
}

/** ISO timestamp `offsetMs` after `base`. */
export function at(base: number, offsetMs: number): string {
  return new Date(base + offsetMs).toISOString();
}

export function sessionRow(
  adwId: string,
  startedAt: string,
  overrides: Partial<SessionRow> = {},
): SessionRow {
  return {
    adw_id: adwId,
    workflow: "build-test",
    request: "fix what review found",
    status: "running",
    accepted: null,
    reason: null,
    cwd: "/work/project",
    started_at: startedAt,
    ended_at: null,
    duration_ms: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
    archived: 0,
    worktree: `/work/project/adws/adw_data/.worktrees/${adwId}`,
    branch: `sssf/${adwId}`,
    base_ref: "0123456789abcdef0123456789abcdef01234567",
    checkout: "/work/project",
    pid: null,
    host: null,
    ...overrides,
  };
}

export function phaseRow(
  adwId: string,
  number: number,
  startedAt: string,
  overrides: Partial<PhaseRow> = {},
): PhaseRow {
  return {
    id: `ph_${adwId}_${number}`,
    adw_id: adwId,
    number,
    name: `phase-${number}`,
    kind: "agent",
    owner: "builder",
    description: "build the thing",
    status: "running",
    started_at: startedAt,
    ended_at: null,
    duration_ms: null,
    error: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
    context_tokens: null,
    replayed_at: null,
    ...overrides,
  };
}

export function eventRow(
  adwId: string,
  id: string,
  startedAt: string,
  overrides: Partial<EventRow> = {},
): EventRow {
  return {
    id,
    adw_id: adwId,
    phase_id: null,
    parent_id: null,
    type: "log",
    name: "note",
    agent: null,
    ok: null,
    started_at: startedAt,
    ended_at: null,
    duration_ms: null,
    payload: "{}",
    ...overrides,
  };
}

/**
 * A realistic trace of one session: rows written as running and then rewritten as finished, nested tool
 * calls, envelope attempts, gate results, processes and agent sessions, with a few secrets to redact.
 */
export function sessionRecords(adwId: string, base: number): TraceRecord[] {
  const records: TraceRecord[] = [{ table: "sessions", row: sessionRow(adwId, at(base, 0)) }];
  for (let number = 1; number <= 3; number += 1) {
    const start = number * 1000;
    const phase = phaseRow(adwId, number, at(base, start));
    records.push({ table: "phases", row: phase });
    const agentSpan = eventRow(adwId, `evt_${adwId}_${number}_agent`, at(base, start + 1), {
      phase_id: phase.id,
      type: "agent_start",
      name: "builder",
      agent: "builder",
    });
    records.push({ table: "events", row: agentSpan });
    for (let call = 0; call < 4; call += 1) {
      records.push({
        table: "events",
        row: eventRow(adwId, `evt_${adwId}_${number}_tool_${call}`, at(base, start + 10 + call), {
          phase_id: phase.id,
          parent_id: agentSpan.id,
          type: "tool_call",
          name:
            call === 0
              ? "bash: curl -H 'Authorization: Bearer abcdefgh12345678' api"
              : `bash: ls -la src/${call}`,
          agent: "builder",
          ok: 1,
          ended_at: at(base, start + 20 + call),
          duration_ms: 10,
          payload: JSON.stringify({
            args: { command: `ANTHROPIC_API_KEY=sk-ant-api03-${"x".repeat(24)} pi` },
            call,
          }),
        }),
      });
    }
    const processRow: ProcessRow = {
      id: `proc_${adwId}_${number}`,
      adw_id: adwId,
      phase_id: phase.id,
      agent: "builder",
      pid: 4000 + number,
      command: "OPENAI_API_KEY=abc123 pi --mode json",
      cwd: "/work/project",
      status: "running",
      exit_code: null,
      signal: null,
      started_at: at(base, start + 2),
      ended_at: null,
      stderr_tail: null,
    };
    records.push({ table: "processes", row: processRow });
    const envelopes: EnvelopeRow[] = [1, 2].map((attempt) => ({
      id: `env_${adwId}_${number}_${attempt}`,
      adw_id: adwId,
      phase_id: phase.id,
      agent: "builder",
      attempt,
      reason: attempt === 1 ? "initial" : "json_fix",
      output_type: "BuildResult",
      valid: attempt === 2 ? 1 : 0,
      status: attempt === 2 ? "success" : null,
      envelope_json: attempt === 2 ? '{"status":"success","summary":"done"}' : null,
      raw_text:
        attempt === 1 ? "not json, token: ghp_abcdefghijklmnopqrstuvwxyz0123456789" : '{"status":"success"}',
      errors: attempt === 1 ? '["invalid JSON"]' : "[]",
      created_at: at(base, start + 100 + attempt),
      accepted: attempt === 2 ? 1 : 0,
    }));
    for (const row of envelopes) records.push({ table: "envelopes", row });
    const gate: GateResultRow = {
      id: `gate_${adwId}_${number}`,
      adw_id: adwId,
      phase_id: phase.id,
      envelope_id: `env_${adwId}_${number}_2`,
      gate: "files-exist",
      ok: number === 3 ? 0 : 1,
      checks: '[{"item":"src/a.ts","ok":true,"note":""}]',
      violations: number === 3 ? '["src/b.ts missing"]' : "[]",
      created_at: at(base, start + 200),
    };
    records.push({ table: "gate_results", row: gate });
    const agentSession: AgentSessionRow = {
      adw_id: adwId,
      agent: "builder",
      session_id: `sess-${adwId}`,
      model: "claude-sonnet-4",
      coding_agent: "pi",
      sends: number,
      created_at: at(base, 1001),
      updated_at: at(base, start + 300),
    };
    records.push({ table: "agent_sessions", row: agentSession });
    records.push({
      table: "steps",
      row: {
        id: `${adwId}-a1-p${number}.phase-${number}.call#1`,
        adw_id: adwId,
        attempt: 1,
        key: `p${number}.phase-${number}.call#1`,
        position: number,
        phase_id: phase.id,
        op: "call",
        input_hash: "0".repeat(64),
        result_json: '{"status":"success","summary":"done"}',
        replayed: 0,
        created_at: at(base, start + 150),
      },
    });
    records.push({
      table: "events",
      row: {
        ...agentSpan,
        id: `${agentSpan.id}_end`,
        type: "agent_end",
        ok: 1,
        started_at: at(base, start + 400),
      },
    });
    records.push({
      table: "processes",
      row: {
        ...processRow,
        status: "exited",
        exit_code: 0,
        ended_at: at(base, start + 400),
        stderr_tail: "warn: x",
      },
    });
    const failed = number === 3;
    records.push({
      table: "phases",
      row: {
        ...phase,
        status: failed ? "fail" : "success",
        ended_at: at(base, start + 500),
        duration_ms: 500,
        error: failed ? "gate files-exist failed" : null,
        input_tokens: 1200 * number,
        output_tokens: 300,
        cost_usd: 0.0123 * number,
        context_tokens: 5000,
      },
    });
  }
  records.push({
    table: "sessions",
    row: sessionRow(adwId, at(base, 0), {
      status: "fail",
      accepted: 0,
      reason: "gate failed",
      ended_at: at(base, 4000),
      duration_ms: 4000,
      input_tokens: 7200,
      output_tokens: 900,
      cost_usd: 0.0738,
    }),
  });
  return records;
}
