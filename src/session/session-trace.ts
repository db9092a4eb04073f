import type { Usage } from "../runtimes/runtime.js";
import type {
  AgentSessionRow,
  EnvelopeRow,
  EventRow,
  EventType,
  GateResultRow,
  PhaseRow,
  ProcessRow,
  SessionRow,
} from "../trace/events.js";
import { newId } from "../trace/ids.js";
import type { Tracer } from "../trace/tracer.js";

export const nowIso = (): string => new Date().toISOString();

export interface EventInput {
  type: EventType;
  name: string;
  phaseId: string | null;
  parentId?: string | null;
  agent?: string | null;
  ok?: boolean | null;
  startedAt?: Date;
  endedAt?: Date | null;
  payload?: Record<string, unknown>;
}

function addUsageTo(row: SessionRow | PhaseRow, usage: Usage): void {
  row.input_tokens += usage.inputTokens;
  row.output_tokens += usage.outputTokens;
  row.cache_read_tokens += usage.cacheReadTokens;
  row.cache_write_tokens += usage.cacheWriteTokens;
  row.cost_usd += usage.costUsd;
}

/**
 * The engine's typed door to the trace: keeps the current rows of one session and writes full rows
 * (upserts) through the tracer, so events.jsonl alone can rebuild the database.
 */
export class SessionTrace {
  readonly adwId: string;
  readonly session: SessionRow;
  private readonly tracer: Tracer;

  constructor(tracer: Tracer, session: SessionRow) {
    this.tracer = tracer;
    this.adwId = session.adw_id;
    this.session = session;
    this.tracer.write({ table: "sessions", row: { ...session } });
  }

  updateSession(patch: Partial<SessionRow>): void {
    Object.assign(this.session, patch);
    this.tracer.write({ table: "sessions", row: { ...this.session } });
  }

  addSessionUsage(usage: Usage): void {
    addUsageTo(this.session, usage);
    this.tracer.write({ table: "sessions", row: { ...this.session } });
  }

  writePhase(row: PhaseRow): void {
    this.tracer.write({ table: "phases", row: { ...row } });
  }

  addPhaseUsage(row: PhaseRow, usage: Usage, contextTokens: number | null): void {
    addUsageTo(row, usage);
    if (contextTokens !== null) row.context_tokens = contextTokens;
    this.writePhase(row);
  }

  event(input: EventInput): EventRow {
    const startedAt = input.startedAt ?? new Date();
    const endedAt = input.endedAt === undefined ? startedAt : input.endedAt;
    const row: EventRow = {
      id: newId("evt"),
      adw_id: this.adwId,
      phase_id: input.phaseId,
      parent_id: input.parentId ?? null,
      type: input.type,
      name: input.name,
      agent: input.agent ?? null,
      ok: input.ok === undefined || input.ok === null ? null : input.ok ? 1 : 0,
      started_at: startedAt.toISOString(),
      ended_at: endedAt === null ? null : endedAt.toISOString(),
      duration_ms: endedAt === null ? null : endedAt.getTime() - startedAt.getTime(),
      payload: JSON.stringify(input.payload ?? {}),
    };
    this.tracer.write({ table: "events", row });
    return row;
  }

  /** Closes a span event (agent_start…) by rewriting it with its end. */
  endEvent(row: EventRow, endedAt: Date, ok: boolean | null, payload?: Record<string, unknown>): void {
    row.ended_at = endedAt.toISOString();
    row.duration_ms = endedAt.getTime() - Date.parse(row.started_at);
    row.ok = ok === null ? null : ok ? 1 : 0;
    if (payload) row.payload = JSON.stringify(payload);
    this.tracer.write({ table: "events", row: { ...row } });
  }

  envelope(row: Omit<EnvelopeRow, "id" | "adw_id" | "created_at">): EnvelopeRow {
    const full: EnvelopeRow = { id: newId("env"), adw_id: this.adwId, created_at: nowIso(), ...row };
    this.tracer.write({ table: "envelopes", row: full });
    return full;
  }

  gateResult(row: Omit<GateResultRow, "id" | "adw_id" | "created_at">): GateResultRow {
    const full: GateResultRow = { id: newId("gate"), adw_id: this.adwId, created_at: nowIso(), ...row };
    this.tracer.write({ table: "gate_results", row: full });
    return full;
  }

  writeProcess(row: ProcessRow): void {
    this.tracer.write({ table: "processes", row: { ...row } });
  }

  writeAgentSession(row: AgentSessionRow): void {
    this.tracer.write({ table: "agent_sessions", row: { ...row } });
  }

  flush(): void {
    this.tracer.flush();
  }
}
