import type { EventRow } from "../../../../../trace/events.js";
import type { Versioned } from "../../../../server/api-types.js";
import { fetchAttemptDiff } from "../../api.js";
import { DiffView, Lazy } from "../../diff-block.js";
import { formatClock, formatCost, formatDuration, formatTokens } from "../../format.js";
import { Fold } from "../../text.js";
import { type BestOfAttempt, type BestOfChoice, bestOfOf, escalationsOf } from "./best-of-model.js";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function AttemptGates({ attempt }: { attempt: BestOfAttempt }) {
  if (attempt.gates.length === 0) return <p class="muted">No gate ran on it.</p>;
  return (
    <ul class="attempt-gates">
      {attempt.gates.map((g, i) => (
        <li key={i} class={g.ok ? "gate-ok" : "gate-failed"} data-gate={g.gate}>
          <span class="mono">{g.gate}</span>{" "}
          {g.ok ? "passed" : `failed (${plural(g.violations.length, "violation")})`}
          {g.violations.length > 0 ? (
            <ul class="attempt-violations">
              {g.violations.map((v, j) => (
                <li key={j}>{v}</li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function AttemptCard({
  adwId,
  phaseId,
  attempt,
}: {
  adwId: string;
  phaseId: string;
  attempt: BestOfAttempt;
}) {
  const a = attempt;
  return (
    <article
      class={`attempt-card attempt-${a.status}${a.winner ? " winner" : ""}`}
      data-attempt={a.attempt}
      data-status={a.status}
    >
      <header class="attempt-head">
        <strong>
          attempt {a.attempt} of {a.of}
        </strong>{" "}
        <span class={`badge attempt-status badge-${a.status === "passed" ? "success" : "fail"}`}>
          {a.status}
        </span>
        {a.winner ? <span class="winner-badge">WINNER</span> : null}
      </header>
      {a.reason ? <p class="attempt-reason">{a.reason}</p> : null}
      <dl class="attempt-facts">
        <dt>changed</dt>
        <dd class="attempt-changed">
          {a.changedLines === null ? "?" : plural(a.changedLines, "line")} in {plural(a.files.length, "file")}
        </dd>
        <dt>cost</dt>
        <dd class="attempt-cost">
          {formatCost(a.costUsd)} · {formatTokens(a.inputTokens)} in / {formatTokens(a.outputTokens)} out
        </dd>
        <dt>time</dt>
        <dd>{formatDuration(a.durationMs)}</dd>
        {a.agentSessionId ? (
          <>
            <dt>session</dt>
            <dd class="mono">{a.agentSessionId}</dd>
          </>
        ) : null}
      </dl>
      {a.files.length > 0 ? (
        <ul class="attempt-files mono">
          {a.files.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      ) : null}
      <h4 class="attempt-heading">Gates</h4>
      <AttemptGates attempt={a} />
      <h4 class="attempt-heading">Check</h4>
      {a.check === null ? (
        <p class="muted attempt-check">No check of its own.</p>
      ) : (
        <p class={`attempt-check ${a.check.ok ? "gate-ok" : "gate-failed"}`}>
          {a.check.ok ? "passed" : "failed"}
          {a.check.summary ? `: ${a.check.summary}` : ""}
        </p>
      )}
      <h4 class="attempt-heading">Diff</h4>
      {a.diff === null ? (
        <p class="muted attempt-diff">No diff saved.</p>
      ) : (
        <div class="attempt-diff">
          <Fold open title={<span class="mono">{a.diff}</span>}>
            <Lazy
              key={a.key}
              load={() => fetchAttemptDiff(adwId, phaseId, a.attempt)}
              render={(d) => <DiffView diff={d} />}
            />
          </Fold>
        </div>
      )}
    </article>
  );
}

function ChoiceLine({ choice, count }: { choice: BestOfChoice | null; count: number }) {
  if (choice === null)
    return <p class="muted best-of-choice">No winner chosen yet ({plural(count, "attempt")} so far).</p>;
  const how = choice.mode === "first" ? "first passing" : "best of all";
  return (
    <p
      class={`best-of-choice ${choice.winner === null ? "none" : "chosen"}`}
      data-winner={choice.winner ?? ""}
    >
      <strong>{choice.winner === null ? "No attempt passed" : `Winner: attempt ${choice.winner}`}</strong> (
      {how}, {plural(choice.attempts, "attempt")}){choice.reason ? `: ${choice.reason}` : ""}
    </p>
  );
}

/**
 * A best-of-N phase's attempts side by side: each one's status, the WINNER badge with why, what it
 * changed, its cost, its gates and check, and its saved diff; the phase's choice above them. Renders
 * nothing for a phase without attempts.
 */
export function BestOfAttempts({
  adwId,
  phaseId,
  events,
}: {
  adwId: string;
  phaseId: string;
  events: readonly Versioned<EventRow>[];
}) {
  const { attempts, choice } = bestOfOf(events);
  if (attempts.length === 0 && choice === null) return null;
  const columns = Math.min(Math.max(attempts.length, 1), 4);
  return (
    <section class="best-of" data-ready="1">
      <h2>Attempts side by side</h2>
      <ChoiceLine choice={choice} count={attempts.length} />
      <div class="attempt-grid" style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
        {attempts.map((a) => (
          <AttemptCard key={a.attempt} adwId={adwId} phaseId={phaseId} attempt={a} />
        ))}
      </div>
    </section>
  );
}

/** The phase's model-ladder climbs: from which model to which, and why. Nothing when it climbed none. */
export function Escalations({ events }: { events: readonly Versioned<EventRow>[] }) {
  const climbs = escalationsOf(events);
  if (climbs.length === 0) return null;
  return (
    <section class="escalations">
      <h2>Model escalations ({climbs.length})</h2>
      <ul>
        {climbs.map((e) => (
          <li key={e.id} class="escalation">
            <span class="muted">{formatClock(e.at)}</span> <span class="mono">{e.from || "?"}</span> →{" "}
            <span class="mono">{e.to || "?"}</span>
            {e.rung === null ? "" : ` (rung ${e.rung + 1})`}
            {e.reason ? <span class="escalation-reason">: {e.reason}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
