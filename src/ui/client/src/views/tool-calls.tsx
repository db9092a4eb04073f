import { Component } from "preact";
import { useState } from "preact/hooks";
import type { EventRow } from "../../../../trace/events.js";
import type { ToolCallsPage, Versioned } from "../../../server/api-types.js";
import { formatClock, formatDuration, parseJson, truncate } from "../format.js";
import { Fold, JsonBlock, TextBlock } from "../text.js";

interface ToolPayload {
  tool?: unknown;
  args?: unknown;
  result?: unknown;
}

const SNIPPET = 600;

/** One tool call; re-renders only when its row changes (long lists stay fast while streaming). */
class ToolCallItem extends Component<{ row: Versioned<EventRow> }> {
  override shouldComponentUpdate(next: { row: Versioned<EventRow> }): boolean {
    return next.row !== this.props.row;
  }

  override render() {
    const { row } = this.props;
    const payload = (parseJson(row.payload) ?? {}) as ToolPayload;
    const result = typeof payload.result === "string" ? payload.result : JSON.stringify(payload.result ?? "");
    const ok = row.ok === null ? "" : row.ok ? "ok" : "failed";
    return (
      <li class={`tool-call ${ok}`} data-event-id={row.id}>
        <div class="tool-line">
          <span class="mono muted">{formatClock(row.started_at)}</span>
          <span class={`tool-ok ${ok}`}>{row.ok === null ? "·" : row.ok ? "✓" : "✕"}</span>
          <span class="tool-name">{row.name}</span>
          <span class="num muted">{formatDuration(row.duration_ms)}</span>
        </div>
        {result ? <pre class="tool-result">{truncate(result, SNIPPET)}</pre> : null}
        <Fold title="Arguments and full result">
          <p class="muted">Tool: {String(payload.tool ?? "?")}</p>
          <JsonBlock
            value={payload.args ?? (parseJson(row.payload) === undefined ? row.payload : {})}
            cut={row._cut}
          />
          <TextBlock text={result} cut={row._cut} />
        </Fold>
      </li>
    );
  }
}

/** What an empty list says: "yet" only while the phase runs; a finished code phase called no agent at all. */
function noCalls(live: boolean, kind: string): string {
  if (live) return "No tool calls yet.";
  return kind === "agent"
    ? "No tool calls."
    : `No tool calls: a ${kind} phase calls no agent (its events say what it did).`;
}

/** The phase's tool calls in time order; earlier pages load on demand. */
export function ToolCalls({
  page,
  onEarlier,
  live,
  kind,
}: {
  page: ToolCallsPage;
  onEarlier: () => Promise<void>;
  /** Whether the phase still runs. */
  live: boolean;
  kind: string;
}) {
  const [loading, setLoading] = useState(false);
  const earlier = () => {
    setLoading(true);
    onEarlier().finally(() => setLoading(false));
  };
  return (
    <div class="tool-calls">
      {page.offset > 0 ? (
        <button type="button" class="more" disabled={loading} onClick={earlier}>
          {loading ? "Loading…" : `Show earlier tool calls (${page.offset} not shown)`}
        </button>
      ) : null}
      {page.rows.length === 0 ? <p class="muted no-tool-calls">{noCalls(live, kind)}</p> : null}
      <ol class="tool-list">
        {page.rows.map((row) => (
          <ToolCallItem key={row.id} row={row} />
        ))}
      </ol>
    </div>
  );
}
