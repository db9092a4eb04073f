import type { RunView as RunData } from "../../../server/api-types.js";
import { fetchRun, postArchive } from "../api.js";
import { laneColors } from "../colors.js";
import { elapsed, formatCost, formatDuration, formatTime, formatTokens } from "../format.js";
import { useLive, useNow } from "../live.js";
import { navigate, routeHref } from "../route.js";
import { StatusBadge, TextBlock } from "../text.js";
import { ApprovalPanel } from "./approval-panel.js";
import { PhaseTable } from "./phase-table.js";
import { BaseDriftLine } from "./review/base-drift.js";
import { MergePanel } from "./review/merge-panel.js";
import { OutcomeLine } from "./review/outcome-label.js";
import { PhaseDiffs } from "./review/phase-diffs.js";
import { RunChanges } from "./run-changes.js";
import { RunSearch } from "./run-search.js";
import { applyRun } from "./run-state.js";
import { Waterfall } from "./waterfall.js";

function Totals({ run, now }: { run: RunData; now: number }) {
  const s = run.session;
  const sum = (key: "tool_calls" | "errors" | "attempts" | "invalid") =>
    Object.values(run.counts).reduce((total, c) => total + c[key], 0);
  const items: [string, string][] = [
    ["Duration", formatDuration(s.status === "running" ? elapsed(s.started_at, null, now) : s.duration_ms)],
    ["Phases", String(run.phases.length)],
    ["Tokens in", formatTokens(s.input_tokens)],
    ["Tokens out", formatTokens(s.output_tokens)],
    ["Cache read/write", `${formatTokens(s.cache_read_tokens)}/${formatTokens(s.cache_write_tokens)}`],
    ["Cost", formatCost(s.cost_usd)],
    ["Tool calls", String(sum("tool_calls"))],
    ["Envelope attempts", `${sum("attempts")}${sum("invalid") ? ` (${sum("invalid")} invalid)` : ""}`],
    ["Errors", String(sum("errors"))],
  ];
  return (
    <dl class="totals">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * One run: header, pending approvals, totals, search, the swimlane waterfall, the phase table and
 * what the run changed, live.
 */
export function RunView({ adwId }: { adwId: string }) {
  const live = useLive<RunData>({
    adwId,
    phaseId: null,
    load: () => fetchRun(adwId),
    apply: (run, delta) => applyRun(run, delta, adwId),
  });
  const run = live.data;
  const running =
    run !== null && (run.session.status === "running" || run.phases.some((p) => p.status === "running"));
  const now = useNow(running, 250);
  if (run === null) {
    return (
      <section class="view">
        <p class={live.error ? "error-line" : "muted"}>{live.error ?? "Loading…"}</p>
      </section>
    );
  }
  const s = run.session;
  const lanes = laneColors(run.phases, run.scheme);
  return (
    <section class="view run-view">
      <nav class="crumbs">
        <a href={routeHref({ view: "sessions" })}>Sessions</a> / <span class="mono">{s.adw_id}</span>
      </nav>
      <header class="run-header">
        <h1>
          <StatusBadge status={s.status} /> {s.workflow} <span class="mono muted">{s.adw_id}</span>
        </h1>
        <div class="meta">
          started {formatTime(s.started_at)}
          {s.branch ? (
            <>
              {" "}
              · branch <span class="mono">{s.branch}</span>
            </>
          ) : null}
          {s.accepted !== null ? <> · {s.accepted ? "accepted" : "not accepted"}</> : null}
          {s.archived ? <> · archived</> : null}
          {" · "}
          <button type="button" class="link-button" onClick={() => postArchive(s.adw_id, !s.archived)}>
            {s.archived ? "Unarchive" : "Archive"}
          </button>
        </div>
        <TextBlock text={s.request} cut={s._cut} className="request-text" />
        <OutcomeLine session={s} />
      </header>
      {run.phases
        .filter((p) => p.kind === "engineer" && p.status === "running")
        .map((p) => (
          <ApprovalPanel key={p.id} adwId={adwId} phaseId={p.id} />
        ))}
      {s.status !== "running" && s.accepted === 1 && s.branch ? <MergePanel adwId={adwId} /> : null}
      {s.status !== "running" && s.accepted !== 1 && s.branch ? (
        <BaseDriftLine adwId={adwId} version={s._v} />
      ) : null}
      <Totals run={run} now={now} />
      <RunSearch adwId={adwId} />
      <h2>Waterfall</h2>
      {run.phases.length === 0 ? (
        <p class="muted no-phases">
          {s.status === "running" ? "No phase has started yet." : "No phase ran in this session."}
        </p>
      ) : (
        <Waterfall
          phases={run.phases}
          counts={run.counts}
          lanes={lanes}
          startedAt={s.started_at}
          endedAt={s.status === "running" ? null : s.ended_at}
          now={now}
          onOpen={(phase) => navigate({ view: "phase", adwId, phaseId: phase.id })}
        />
      )}
      <h2>Phases</h2>
      <PhaseTable
        adwId={adwId}
        phases={run.phases}
        counts={run.counts}
        lanes={lanes}
        agents={run.agents}
        now={now}
      />
      <h2>Changes</h2>
      <RunChanges adwId={adwId} phases={run.phases} />
      {s.branch ? (
        <>
          <h2>What each phase changed</h2>
          <PhaseDiffs adwId={adwId} phases={run.phases} />
        </>
      ) : null}
    </section>
  );
}
