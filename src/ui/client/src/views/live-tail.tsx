import type { EventRow } from "../../../../trace/events.js";
import type { PhaseDetail, Versioned } from "../../../server/api-types.js";
import { formatClock, parseJson } from "../format.js";
import { Fold, JsonBlock, TextBlock } from "../text.js";

/**
 * Event types of the live tail: the agent's text as it streams (`{ text }`, throttled) and a tool
 * call as it starts (`{ tool, args }`). Compared as strings: a trace written before they existed has
 * none, and the types of `events.ts` may not list them yet.
 */
export const AGENT_TEXT = "agent_text";
export const TOOL_START = "tool_start";
export const LIVE_TAIL_TYPES: readonly string[] = [AGENT_TEXT, TOOL_START];

/** Agent text messages the live tail shows (the latest ones). */
export const TAIL_MESSAGES = 12;

/** Whether an event belongs to the live tail rather than the events list. */
export function isTailEvent(event: EventRow): boolean {
  return LIVE_TAIL_TYPES.includes(event.type as string);
}

function payloadOf(event: EventRow): Record<string, unknown> {
  const value = parseJson(event.payload);
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function toolOf(event: EventRow): string {
  const tool = payloadOf(event).tool;
  return typeof tool === "string" ? tool : event.name;
}

/**
 * The tool call in flight: the latest `tool_start` that no `tool_call` of the same tool recorded
 * after it (a larger rowid) has finished. Null when there is none.
 */
export function toolInFlight(
  events: readonly Versioned<EventRow>[],
  toolCalls: readonly Versioned<EventRow>[],
): Versioned<EventRow> | null {
  const starts = events.filter((e) => (e.type as string) === TOOL_START);
  const last = starts.reduce<Versioned<EventRow> | null>((a, e) => (a === null || e._v > a._v ? e : a), null);
  if (last === null) return null;
  const tool = toolOf(last);
  const done = toolCalls.some((call) => call._v > last._v && toolOf(call) === tool);
  return done ? null : last;
}

/** The agent's text messages, in order. */
export function agentTexts(
  events: readonly Versioned<EventRow>[],
): { event: Versioned<EventRow>; text: string }[] {
  return events
    .filter((e) => (e.type as string) === AGENT_TEXT)
    .map((event) => {
      const text = payloadOf(event).text;
      return { event, text: typeof text === "string" ? text : "" };
    });
}

/**
 * For an agent phase: while it runs, a live box with the tool call in flight and the agent's latest
 * text; once it ended, the whole text stream folded away. Nothing when the trace has no such events.
 */
export function LiveTail({ detail }: { detail: PhaseDetail }) {
  const texts = agentTexts(detail.events);
  const running = detail.phase.status === "running";
  const inFlight = running ? toolInFlight(detail.events, detail.tool_calls.rows) : null;
  if (texts.length === 0 && inFlight === null) return null;
  if (!running) {
    return (
      <Fold title={`Agent text as it streamed (${texts.length} messages)`}>
        <TextBlock text={texts.map((t) => t.text).join("\n")} className="agent-text" />
      </Fold>
    );
  }
  const latest = texts.slice(-TAIL_MESSAGES);
  const args = inFlight ? payloadOf(inFlight).args : undefined;
  return (
    <div class="live-tail" data-ready="1">
      <h2>
        <span class="pulse" /> Live
      </h2>
      {inFlight ? (
        <div class="tool-in-flight" data-event-id={inFlight.id}>
          <p>
            <strong>Tool in flight:</strong> <span class="mono tool-name">{toolOf(inFlight)}</span>{" "}
            <span class="muted">since {formatClock(inFlight.started_at)}</span>
          </p>
          {args !== undefined ? <JsonBlock value={args} cut={inFlight._cut} /> : null}
        </div>
      ) : (
        <p class="muted tool-in-flight-none">No tool call in flight.</p>
      )}
      {latest.length > 0 ? (
        <>
          <p class="muted">
            Agent text
            {texts.length > latest.length ? ` (the latest ${latest.length} of ${texts.length})` : ""}:
          </p>
          <TextBlock text={latest.map((t) => t.text).join("\n")} className="agent-text" />
        </>
      ) : null}
    </div>
  );
}
