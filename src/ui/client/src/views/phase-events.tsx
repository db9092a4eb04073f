import type { EventRow, ProcessRow } from "../../../../trace/events.js";
import type { Versioned } from "../../../server/api-types.js";
import { formatClock, formatDuration, parseJson } from "../format.js";
import { Fold, JsonBlock, TextBlock } from "../text.js";

/** The phase's other events (start and end, sends, handoffs, gates, logs, errors) in time order. */
export function PhaseEvents({ events }: { events: Versioned<EventRow>[] }) {
  if (events.length === 0) return <p class="muted">No events.</p>;
  return (
    <ol class="event-list">
      {events.map((event) => (
        <li
          key={event.id}
          class={`event type-${event.type} ${event.ok === 0 ? "failed" : ""}`}
          data-event-id={event.id}
        >
          <Fold
            title={
              <>
                <span class="mono muted">{formatClock(event.started_at)}</span>{" "}
                <span class="event-type">{event.type}</span>{" "}
                {event.agent ? <span class="muted">{event.agent} · </span> : null}
                <span class="event-name">{event.name}</span>
                {event.duration_ms ? <span class="muted"> · {formatDuration(event.duration_ms)}</span> : null}
              </>
            }
          >
            <JsonBlock value={parseJson(event.payload) ?? event.payload} cut={event._cut} />
          </Fold>
        </li>
      ))}
    </ol>
  );
}

/** The agent processes the phase spawned: pid, command, how each ended, stderr tail. */
export function PhaseProcesses({ processes }: { processes: Versioned<ProcessRow>[] }) {
  if (processes.length === 0) return null;
  return (
    <table class="table processes">
      <thead>
        <tr>
          <th>pid</th>
          <th>Agent</th>
          <th>Status</th>
          <th class="num">Exit</th>
          <th>Started</th>
          <th>Command and stderr</th>
        </tr>
      </thead>
      <tbody>
        {processes.map((p) => (
          <tr
            key={p.id}
            class={p.status === "exited" && p.exit_code === 0 ? "" : p.status === "running" ? "" : "row-fail"}
          >
            <td class="mono">{p.pid}</td>
            <td>{p.agent ?? "–"}</td>
            <td>
              {p.status}
              {p.signal ? ` (${p.signal})` : ""}
            </td>
            <td class="num">{p.exit_code ?? "–"}</td>
            <td class="nowrap">{formatClock(p.started_at)}</td>
            <td>
              <Fold title="command">
                <TextBlock
                  text={(() => {
                    const argv = parseJson(p.command);
                    return Array.isArray(argv) ? argv.map(String).join(" ") : p.command;
                  })()}
                  cut={p._cut}
                />
                <p class="muted">cwd {p.cwd}</p>
              </Fold>
              {p.stderr_tail ? (
                <Fold title="stderr tail">
                  <TextBlock text={p.stderr_tail} />
                </Fold>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
