import { useEffect, useState } from "preact/hooks";
import type { PhaseRow } from "../../../../trace/events.js";
import type { RunView } from "../../../server/api-types.js";
import { fetchRun } from "../api.js";
import { formatCost, formatDuration, formatTokens } from "../format.js";
import { routeHref } from "../route.js";
import { StatusBadge } from "../text.js";
import { alignPhases, differs } from "./compare-model.js";
import { CompareReview } from "./review/compare-review.js";

const tokensOf = (p: { input_tokens: number; output_tokens: number }) => p.input_tokens + p.output_tokens;

function Cell({
  value,
  other,
  format,
}: {
  value: number | null;
  other: number | null;
  format: (n: number | null) => string;
}) {
  return <td class={`num ${differs(value, other) ? "diff-cell" : ""}`}>{format(value)}</td>;
}

function Side({ phase, other, adwId }: { phase: PhaseRow | null; other: PhaseRow | null; adwId: string }) {
  if (phase === null) {
    return (
      <td class="missing" colSpan={5}>
        (no such phase)
      </td>
    );
  }
  return (
    <>
      <td class={other !== null && other.status !== phase.status ? "diff-cell" : ""}>
        <StatusBadge status={phase.status} />{" "}
        <a href={routeHref({ view: "phase", adwId, phaseId: phase.id })}>
          #{phase.number} {phase.name}
        </a>
      </td>
      <Cell value={phase.duration_ms} other={other?.duration_ms ?? null} format={formatDuration} />
      <Cell value={tokensOf(phase)} other={other ? tokensOf(other) : null} format={formatTokens} />
      <Cell value={phase.cost_usd} other={other?.cost_usd ?? null} format={formatCost} />
      <td class="muted">{phase.kind === "agent" ? phase.owner : phase.kind}</td>
    </>
  );
}

function Head({ run }: { run: RunView }) {
  const s = run.session;
  return (
    <th colSpan={5}>
      <StatusBadge status={s.status} /> <a href={routeHref({ view: "run", adwId: s.adw_id })}>{s.workflow}</a>{" "}
      <span class="mono muted">{s.adw_id}</span>
    </th>
  );
}

/** Two runs side by side: phases lined up by name and position, differences highlighted, totals. */
export function CompareView({ a, b }: { a: string; b: string }) {
  const [runs, setRuns] = useState<[RunView, RunView] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([fetchRun(a), fetchRun(b)]).then(
      (both) => setRuns(both),
      (e: Error) => setError(e.message),
    );
  }, [a, b]);
  if (runs === null) {
    return (
      <section class="view">
        <p class={error ? "error-line" : "muted"}>{error ?? "Loading…"}</p>
      </section>
    );
  }
  const [ra, rb] = runs;
  const pairs = alignPhases(ra.phases, rb.phases);
  const sa = ra.session;
  const sb = rb.session;
  const total = (label: string, x: number | null, y: number | null, format: (n: number | null) => string) => (
    <tr key={label} class="compare-total">
      <th>{label}</th>
      <td class={`num ${differs(x, y) ? "diff-cell" : ""}`}>{format(x)}</td>
      <td class={`num ${differs(x, y) ? "diff-cell" : ""}`}>{format(y)}</td>
    </tr>
  );
  return (
    <section class="view compare-view" data-ready="1">
      <nav class="crumbs">
        <a href={routeHref({ view: "sessions" })}>Sessions</a> / compare
      </nav>
      <h1>Compare two runs</h1>
      <table class="table compare-totals">
        <thead>
          <tr>
            <th />
            <th class="num mono">{sa.adw_id}</th>
            <th class="num mono">{sb.adw_id}</th>
          </tr>
        </thead>
        <tbody>
          <tr class="compare-total">
            <th>Status</th>
            <td class={`num ${sa.status !== sb.status ? "diff-cell" : ""}`}>{sa.status}</td>
            <td class={`num ${sa.status !== sb.status ? "diff-cell" : ""}`}>{sb.status}</td>
          </tr>
          {total("Phases", ra.phases.length, rb.phases.length, (n) => String(n ?? "–"))}
          {total("Duration", sa.duration_ms, sb.duration_ms, formatDuration)}
          {total("Tokens in", sa.input_tokens, sb.input_tokens, formatTokens)}
          {total("Tokens out", sa.output_tokens, sb.output_tokens, formatTokens)}
          {total("Cost", sa.cost_usd, sb.cost_usd, formatCost)}
        </tbody>
      </table>
      <table class="table compare-table">
        <thead>
          <tr>
            <Head run={ra} />
            <Head run={rb} />
          </tr>
          <tr>
            {[0, 1].map((side) => [
              <th key={`p${side}`}>Phase</th>,
              <th key={`d${side}`} class="num">
                Duration
              </th>,
              <th key={`t${side}`} class="num">
                Tokens
              </th>,
              <th key={`c${side}`} class="num">
                Cost
              </th>,
              <th key={`o${side}`}>Owner</th>,
            ])}
          </tr>
        </thead>
        <tbody>
          {pairs.map((pair, i) => (
            <tr
              key={i}
              class={`compare-row ${pair.a === null || pair.b === null ? "unmatched" : ""}`}
              data-name={(pair.a ?? pair.b)?.name}
            >
              <Side phase={pair.a} other={pair.b} adwId={a} />
              <Side phase={pair.b} other={pair.a} adwId={b} />
            </tr>
          ))}
        </tbody>
      </table>
      <CompareReview runs={runs} />
    </section>
  );
}
