/**
 * Turns trace records (the rows the tracer writes, in order) into OpenTelemetry spans: a run, its
 * phases, each agent send, its tool calls, each gate and each quality suite. Spans start and end at
 * the rows' own timestamps; a span still open when the records stop is ended at the last time seen.
 * Loaded only when an export is on.
 */
import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { EventRow, PhaseRow, SessionRow, TraceRecord } from "../trace/events.js";
import {
  gateAttributes,
  phaseAttributes,
  runAttributes,
  sendAttributes,
  suiteAttributes,
  suiteOf,
  toolAttributes,
  toolOf,
} from "./span-attributes.js";

const timeOf = (iso: string): number => Date.parse(iso);

/** A span this builder started and has not ended yet. */
interface OpenSpan {
  span: Span;
  startMs: number;
}

/**
 * Consumes records and starts and ends spans on `tracer`. Never throws for odd records: a row whose
 * parent was never seen hangs under its phase, else its run.
 */
export class SpanBuilder {
  readonly #tracer: Tracer;
  /** Span contexts by sssf id: adw_id (runs), phase id, event id (sends). */
  readonly #contexts = new Map<string, SpanContext>();
  /** Spans open until their row says they ended: runs, phases, sends. */
  readonly #open = new Map<string, OpenSpan>();
  /** Each agent's runtime id, by `adw_id agent`. */
  readonly #codingAgents = new Map<string, string>();
  /** The latest timestamp of any record: where spans left open end. */
  #lastMs = 0;
  #spans = 0;

  constructor(tracer: Tracer) {
    this.#tracer = tracer;
  }

  /** How many spans were ended so far. */
  get spans(): number {
    return this.#spans;
  }

  /** Feeds records in the order they were written. */
  consume(records: readonly TraceRecord[]): void {
    for (const record of records) {
      switch (record.table) {
        case "sessions":
          this.#session(record.row);
          break;
        case "phases":
          this.#phase(record.row);
          break;
        case "events":
          this.#event(record.row);
          break;
        case "agent_sessions":
          this.#codingAgents.set(`${record.row.adw_id} ${record.row.agent}`, record.row.coding_agent);
          break;
        default:
          break;
      }
    }
  }

  /** Ends every span still open (a run cut short) at the last time seen, as an error. */
  endOpen(): void {
    for (const [id, open] of [...this.#open].reverse()) {
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: "not ended in the trace" });
      this.#end(id, open, Math.max(this.#lastMs, open.startMs));
    }
  }

  #see(ms: number): void {
    if (ms > this.#lastMs) this.#lastMs = ms;
  }

  #parent(...ids: (string | null)[]): ReturnType<typeof trace.setSpanContext> {
    for (const id of ids) {
      const context = id === null ? undefined : this.#contexts.get(id);
      if (context !== undefined) return trace.setSpanContext(ROOT_CONTEXT, context);
    }
    return ROOT_CONTEXT;
  }

  /** Starts (once) the span kept open under `id`; its attributes are replaced on every later row. */
  #opened(
    id: string,
    name: string,
    startMs: number,
    parent: string[],
    attributes: Attributes,
  ): OpenSpan | undefined {
    let open = this.#open.get(id);
    if (open === undefined && !this.#contexts.has(id)) {
      const span = this.#tracer.startSpan(name, { startTime: startMs, attributes }, this.#parent(...parent));
      open = { span, startMs };
      this.#open.set(id, open);
      this.#contexts.set(id, span.spanContext());
    } else open?.span.setAttributes(attributes);
    return open;
  }

  #end(id: string, open: OpenSpan, endMs: number): void {
    open.span.end(Math.max(endMs, open.startMs));
    this.#open.delete(id);
    this.#spans += 1;
  }

  /** A span that starts and ends at once (tool calls, gates, suites). */
  #closed(
    name: string,
    startMs: number,
    endMs: number,
    parent: ReturnType<typeof trace.setSpanContext>,
    attributes: Attributes,
    ok: boolean | null,
  ): void {
    const span = this.#tracer.startSpan(name, { startTime: startMs, attributes }, parent);
    if (ok === false) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(Math.max(endMs, startMs));
    this.#spans += 1;
    this.#see(endMs);
  }

  #session(row: SessionRow): void {
    const startMs = timeOf(row.started_at);
    this.#see(startMs);
    // A session written again after it ended (a resume, a join) is a new run of the same adw_id.
    if (!this.#open.has(row.adw_id) && row.status === "running") this.#contexts.delete(row.adw_id);
    const open = this.#opened(row.adw_id, "sssf.run", startMs, [], runAttributes(row));
    if (open === undefined || row.status === "running" || row.ended_at === null) return;
    const endMs = timeOf(row.ended_at);
    this.#see(endMs);
    if (row.accepted !== 1) open.span.setStatus({ code: SpanStatusCode.ERROR, message: row.reason ?? "" });
    this.#end(row.adw_id, open, endMs);
  }

  #phase(row: PhaseRow): void {
    const startMs = timeOf(row.started_at);
    this.#see(startMs);
    const open = this.#opened(row.id, `sssf.phase ${row.name}`, startMs, [row.adw_id], phaseAttributes(row));
    if (open === undefined || row.status === "running" || row.ended_at === null) return;
    const endMs = timeOf(row.ended_at);
    this.#see(endMs);
    if (row.status !== "success")
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: row.error ?? "" });
    this.#end(row.id, open, endMs);
  }

  #event(row: EventRow): void {
    const startMs = timeOf(row.started_at);
    const endMs = row.ended_at === null ? startMs : timeOf(row.ended_at);
    this.#see(startMs);
    switch (row.type) {
      case "agent_start":
        this.#send(row, startMs);
        return;
      case "tool_call":
        this.#closed(
          `execute_tool ${toolOf(row)}`,
          startMs,
          endMs,
          this.#parent(row.parent_id, row.phase_id, row.adw_id),
          toolAttributes(row),
          row.ok === null ? null : row.ok === 1,
        );
        return;
      case "gate_pass":
      case "gate_fail": {
        const attributes = gateAttributes(row);
        this.#closed(
          `sssf.gate ${String(attributes["sssf.gate.name"])}`,
          startMs,
          endMs,
          this.#parent(row.phase_id, row.adw_id),
          attributes,
          row.type === "gate_pass",
        );
        return;
      }
      default: {
        const suite = suiteOf(row);
        // A suite's event is written when it ended: it started its duration before.
        if (suite !== null)
          this.#closed(
            `sssf.suite ${suite.suite}`,
            startMs - suite.durationMs,
            startMs,
            this.#parent(row.phase_id, row.adw_id),
            suiteAttributes(row, suite),
            suite.passed,
          );
      }
    }
  }

  #send(row: EventRow, startMs: number): void {
    const codingAgent = row.agent === null ? undefined : this.#codingAgents.get(`${row.adw_id} ${row.agent}`);
    const open = this.#opened(
      row.id,
      `invoke_agent ${row.agent ?? ""}`.trim(),
      startMs,
      [row.phase_id ?? "", row.adw_id],
      sendAttributes(row, codingAgent),
    );
    if (open === undefined || row.ended_at === null) return;
    const endMs = timeOf(row.ended_at);
    this.#see(endMs);
    if (row.ok === 0) open.span.setStatus({ code: SpanStatusCode.ERROR });
    this.#end(row.id, open, endMs);
  }
}
