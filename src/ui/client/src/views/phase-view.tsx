import { useEffect, useRef } from "preact/hooks";
import type { PhaseDetail } from "../../../server/api-types.js";
import { fetchPhase, fetchPrompts, fetchToolCalls } from "../api.js";
import { agentColor } from "../colors.js";
import { elapsed, formatClock, formatDuration } from "../format.js";
import { useLive, useNow } from "../live.js";
import { routeHref } from "../route.js";
import { Fold, StatusBadge, TextBlock } from "../text.js";
import { ApprovalPanel } from "./approval-panel.js";
import { attemptsOf } from "./attempts-model.js";
import { isTailEvent, LiveTail } from "./live-tail.js";
import { PhaseAttempts } from "./phase-attempts.js";
import { PhaseEvents, PhaseProcesses } from "./phase-events.js";
import { PhaseProblems } from "./phase-problems.js";
import { applyPhase } from "./phase-state.js";
import { PhaseUsage } from "./phase-usage.js";
import { BestOfAttempts, Escalations } from "./review/best-of.js";
import { PhaseOwnDiff } from "./review/phase-diffs.js";
import { PhaseChanges, SuiteOutput } from "./suite-output.js";
import { ToolCalls } from "./tool-calls.js";

const PAGE = 500;

/** Everything about one phase, live: problems first, then spend, attempts, tool calls and events. */
export function PhaseView({ adwId, phaseId }: { adwId: string; phaseId: string }) {
  const live = useLive<PhaseDetail>({
    adwId,
    phaseId,
    load: () => fetchPhase(adwId, phaseId),
    apply: applyPhase,
  });
  const detail = live.data;
  const now = useNow(detail?.phase.status === "running", 250);

  // A new send or envelope means a new prompt file (a correction): fetch the prompts again.
  const sends = detail
    ? detail.events.filter((e) => e.type === "agent_start").length + detail.envelopes.length
    : 0;
  const seen = useRef(-1);
  useEffect(() => {
    if (detail === null) return;
    if (seen.current === -1 || sends <= seen.current) {
      seen.current = sends;
      return;
    }
    seen.current = sends;
    fetchPrompts(adwId, phaseId).then(
      (files) => live.update((d) => ({ ...d, ...files })),
      () => {},
    );
  }, [sends, detail === null]);

  if (detail === null) {
    return (
      <section class="view">
        <p class={live.error ? "error-line" : "muted"}>{live.error ?? "Loading…"}</p>
      </section>
    );
  }
  const p = detail.phase;
  const attempts = attemptsOf(detail);
  const color = p.kind === "agent" ? agentColor(p.owner, detail.scheme) : undefined;
  const earlier = async () => {
    const offset = detail.tool_calls.offset;
    const start = Math.max(0, offset - PAGE);
    const page = await fetchToolCalls(adwId, phaseId, start, offset - start);
    live.update((d) => {
      const known = new Set(d.tool_calls.rows.map((r) => r.id));
      const rows = [...page.rows.filter((r) => !known.has(r.id)), ...d.tool_calls.rows];
      return { ...d, tool_calls: { ...d.tool_calls, rows, offset: start } };
    });
  };
  return (
    <section class="view phase-detail" data-ready="1" data-phase-id={p.id}>
      <nav class="crumbs">
        <a href={routeHref({ view: "sessions" })}>Sessions</a> /{" "}
        <a href={routeHref({ view: "run", adwId })} class="mono">
          {adwId}
        </a>{" "}
        / phase {p.number}
      </nav>
      <header class="phase-header">
        <h1>
          <StatusBadge status={p.status} /> #{p.number} {p.name}{" "}
          <span class="owner">
            {color ? <span class="swatch" style={{ background: color }} /> : null}
            {p.kind === "agent" ? p.owner : p.kind}
          </span>
        </h1>
        <p class="meta">
          {p.kind} phase · started {formatClock(p.started_at)} ·{" "}
          {formatDuration(elapsed(p.started_at, p.ended_at, now))}
          {p.status === "running" ? " so far" : ""} · {detail.counts.tool_calls} tool calls ·{" "}
          {detail.counts.attempts} envelope attempt(s)
        </p>
        {p.description ? <p class="description">{p.description}</p> : null}
      </header>
      <PhaseProblems detail={detail} />
      {p.kind === "engineer" && p.status === "running" ? (
        <ApprovalPanel adwId={adwId} phaseId={p.id} />
      ) : null}
      <LiveTail detail={detail} />
      <SuiteOutput adwId={adwId} phaseId={p.id} envelopes={detail.envelopes} />
      <PhaseChanges adwId={adwId} phaseId={p.id} envelopes={detail.envelopes} events={detail.events} />
      <PhaseOwnDiff adwId={adwId} phaseId={p.id} live={p.status === "running"} />
      <Escalations events={detail.events} />
      <BestOfAttempts adwId={adwId} phaseId={p.id} events={detail.events} />
      {p.kind === "agent" || attempts.length > 0 ? (
        <>
          <h2>Usage and context</h2>
          <PhaseUsage detail={detail} attempts={attempts} />
          <h2>Attempts</h2>
          <PhaseAttempts attempts={attempts} />
        </>
      ) : null}
      <h2>Tool calls ({detail.tool_calls.total})</h2>
      <ToolCalls page={detail.tool_calls} onEarlier={earlier} live={p.status === "running"} kind={p.kind} />
      <h2>Events</h2>
      <PhaseEvents events={detail.events.filter((e) => !isTailEvent(e))} />
      <PhaseProcesses processes={detail.processes} />
      {detail.system_prompts.length > 0 ? (
        <>
          <h2>System prompts</h2>
          {detail.system_prompts.map((s) => (
            <Fold key={s.agent} title={`${s.agent}: system.md (the last one saved)`}>
              <TextBlock text={s.text} cut={s.cut} />
            </Fold>
          ))}
        </>
      ) : null}
    </section>
  );
}
