import { useState } from "preact/hooks";
import type { SearchResult } from "../../../server/api-types.js";
import { searchRun } from "../api.js";
import { formatClock } from "../format.js";
import { routeHref } from "../route.js";

/**
 * A search box over the run's events: name and payload (tool arguments and results included),
 * matched on the server; every hit links to its phase.
 */
export function RunSearch({ adwId }: { adwId: string }) {
  const [q, setQ] = useState("");
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const text = q.trim();
    setError(null);
    if (text === "") {
      setResult(null);
      return;
    }
    searchRun(adwId, text).then(setResult, (e: Error) => setError(e.message));
  };
  return (
    <div class="run-search">
      <form class="search-form" onSubmit={submit}>
        <input
          type="search"
          class="run-search-input"
          placeholder="Search this run's events, tool arguments and results"
          value={q}
          maxLength={500}
          onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
      </form>
      {error ? <p class="error-line">{error}</p> : null}
      {result ? (
        <div class="search-results" data-q={result.q}>
          <p class="muted">
            {result.total === 0
              ? `No event contains “${result.q}”.`
              : `${result.total} event${result.total === 1 ? "" : "s"} contain “${result.q}”${
                  result.total > result.hits.length ? ` (the first ${result.hits.length} shown)` : ""
                }.`}
          </p>
          <ol class="search-hits">
            {result.hits.map((hit) => (
              <li key={hit.id} class="search-hit" data-event-id={hit.id}>
                <span class="mono muted">{formatClock(hit.started_at)}</span>{" "}
                {hit.phase_id ? (
                  <a href={routeHref({ view: "phase", adwId, phaseId: hit.phase_id })} class="hit-phase">
                    #{hit.phase_number ?? "?"} {hit.phase_name ?? hit.phase_id}
                  </a>
                ) : (
                  <span class="muted">(run)</span>
                )}{" "}
                <span class="event-type">{hit.type}</span> <span class="event-name">{hit.name}</span>
                <pre class="hit-snippet">{hit.snippet}</pre>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </div>
  );
}
