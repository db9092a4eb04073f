import type { Usage } from "../runtimes/runtime.js";
import type {
  AgentSessionRow,
  EnvelopeRow,
  EventRow,
  GateResultRow,
  PhaseRow,
  ProcessRow,
  SessionRow,
  StepRow,
} from "../trace/events.js";
import { newId } from "../trace/ids.js";
import { type EventInput, endEventRow, eventRow } from "../trace/rows.js";
import type { Tracer } from "../trace/tracer.js";

export type { EventInput };

export const nowIso = (): string => new Date().toISOString();

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
    const row = eventRow(this.adwId, input);
    this.tracer.write({ table: "events", row });
    return row;
  }

  /** Closes a span event (agent_start…) by rewriting it with its end. */
  endEvent(row: EventRow, endedAt: Date, ok: boolean | null, payload?: Record<string, unknown>): void {
    this.tracer.write({ table: "events", row: { ...endEventRow(row, endedAt, ok, payload) } });
  }

  /** One attempt's envelope row, not (yet) accepted unless `row.accepted` says so. */
  envelope(
    row: Omit<EnvelopeRow, "id" | "adw_id" | "created_at" | "accepted"> & { accepted?: number },
  ): EnvelopeRow {
    const full: EnvelopeRow = {
      id: newId("env"),
      adw_id: this.adwId,
      created_at: nowIso(),
      ...row,
      accepted: row.accepted ?? 0,
    };
    this.tracer.write({ table: "envelopes", row: full });
    return full;
  }

  /** Marks an envelope row as the one that crossed its phase's boundary (rewrites the row). */
  acceptEnvelope(row: EnvelopeRow): void {
    row.accepted = 1;
    this.tracer.write({ table: "envelopes", row: { ...row } });
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

  /**
   * Durable steps, in the events file when this returns and committed to the db when it resolves: a
   * step awaited survives a SIGKILL a moment later.
   */
  writeSteps(rows: readonly StepRow[]): Promise<void> {
    this.queueSteps(rows);
    return this.tracer.flush();
  }

  /** Steps in the events file at once, stored in the db with the next flush (the next `writeSteps`). */
  queueSteps(rows: readonly StepRow[]): void {
    for (const row of rows) this.tracer.write({ table: "steps", row: { ...row } });
  }

  /** Every record written so far: in the file at once, committed to the db when it resolves. */
  flush(): Promise<void> {
    return this.tracer.flush();
  }

  /** True once another process claimed the session: the trace takes nothing more from this one. */
  get fenced(): boolean {
    return this.tracer.fenced;
  }

  /** Reads the session's owner now: false when another process claimed it (see `fenced`). */
  stillOwner(): Promise<boolean> {
    return this.tracer.checkFence();
  }
}
