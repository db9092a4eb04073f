import { useEffect, useState } from "preact/hooks";
import type { UsageReport, UsageSum } from "../../../server/api-types.js";
import { fetchUsage } from "../api.js";
import { BarChart, LineChart, type Point } from "../charts.js";
import { formatCost, formatTokens } from "../format.js";
import { routeHref } from "../route.js";

const tokens = (s: UsageSum) => s.input_tokens + s.output_tokens;
const money = (n: number) => (n === 0 ? "$0" : formatCost(n));

/** Running totals of `days` as chart points. */
function cumulative(days: UsageReport["days"], value: (s: UsageSum) => number): Point[] {
  let sum = 0;
  return days.map((d) => {
    sum += value(d);
    return { label: d.day, value: sum, at: Date.parse(`${d.day}T00:00:00Z`) };
  });
}

function Breakdown<T extends UsageSum>({
  title,
  rows,
  name,
  unit,
}: {
  title: string;
  rows: T[];
  name: (row: T) => string;
  unit: string;
}) {
  return (
    <section class="usage-breakdown" data-breakdown={title.toLowerCase()}>
      <h2>{title}</h2>
      <BarChart
        label={`cost per ${title}`}
        items={rows.map((r) => ({ label: name(r), value: r.cost_usd }))}
        format={money}
      />
      <table class="table">
        <thead>
          <tr>
            <th>{title}</th>
            <th class="num">{unit}</th>
            <th class="num">Tokens in</th>
            <th class="num">Tokens out</th>
            <th class="num">Cache read</th>
            <th class="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={name(r)}>
              <td>{name(r)}</td>
              <td class="num">{r.runs}</td>
              <td class="num">{formatTokens(r.input_tokens)}</td>
              <td class="num">{formatTokens(r.output_tokens)}</td>
              <td class="num">{formatTokens(r.cache_read_tokens)}</td>
              <td class="num">{formatCost(r.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Spend over the whole trace: cumulative cost and tokens per day, and per workflow, agent and model. */
export function UsageView() {
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => fetchUsage().then(setReport, (e: Error) => setError(e.message));
  useEffect(() => void load(), []);
  if (report === null) {
    return (
      <section class="view">
        <p class={error ? "error-line" : "muted"}>{error ?? "Loading…"}</p>
      </section>
    );
  }
  const total = report.days.reduce((s, d) => s + d.cost_usd, 0);
  const allTokens = report.days.reduce((s, d) => s + tokens(d), 0);
  const runs = report.days.reduce((s, d) => s + d.runs, 0);
  return (
    <section class="view usage-view" data-ready="1">
      <nav class="crumbs">
        <a href={routeHref({ view: "sessions" })}>Sessions</a> / usage
      </nav>
      <h1>
        Cost and tokens{" "}
        <button type="button" class="link-button" onClick={() => void load()}>
          Refresh
        </button>
      </h1>
      <dl class="totals">
        <div>
          <dt>Runs</dt>
          <dd>{runs}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd class="usage-total-cost">{money(total)}</dd>
        </div>
        <div>
          <dt>Tokens in + out</dt>
          <dd>{formatTokens(allTokens)}</dd>
        </div>
        <div>
          <dt>Days</dt>
          <dd>{report.days.length}</dd>
        </div>
      </dl>
      <div class="usage-charts">
        <section>
          <h2>Cumulative cost per day (UTC)</h2>
          <LineChart
            label="cumulative cost"
            points={cumulative(report.days, (d) => d.cost_usd)}
            format={money}
          />
        </section>
        <section>
          <h2>Cumulative tokens per day (UTC)</h2>
          <LineChart
            label="cumulative tokens"
            points={cumulative(report.days, tokens)}
            format={formatTokens}
          />
        </section>
      </div>
      <Breakdown title="Workflow" rows={report.workflows} name={(r) => r.workflow} unit="Runs" />
      <Breakdown title="Agent" rows={report.agents} name={(r) => r.agent} unit="Phases" />
      <Breakdown
        title="Model"
        rows={report.models}
        name={(r) => `${r.model} (${r.coding_agent})`}
        unit="Phases"
      />
    </section>
  );
}
