import type { AgentInfo, PhaseDetail } from "../../../server/api-types.js";
import { formatCost, formatDuration, formatTokens } from "../format.js";
import type { Attempt } from "./attempts-model.js";
import { reasonLabel } from "./attempts-model.js";

function ContextBar({ tokens, agent }: { tokens: number | null; agent: AgentInfo | undefined }) {
  if (tokens === null) return <p class="muted">Context occupancy: not reported by this runtime.</p>;
  const window = agent?.context_window ?? null;
  const share = window ? Math.min(1, tokens / window) : null;
  return (
    <div class="context">
      <p>
        Context at the last send: <strong>{formatTokens(tokens)}</strong> tokens
        {window ? (
          <>
            {" "}
            of {formatTokens(window)} ({Math.round((share ?? 0) * 100)}%) for {agent?.model}
          </>
        ) : (
          <> (window of {agent?.model ?? "this model"} unknown)</>
        )}
      </p>
      {share !== null ? (
        // Decoration only: the percentage is in the sentence above.
        <div class="meter" aria-hidden="true">
          <div
            class={`meter-fill ${share > 0.8 ? "high" : ""}`}
            style={{ width: `${(share * 100).toFixed(1)}%` }}
          />
        </div>
      ) : null}
    </div>
  );
}

/** Tokens and cost per send and for the phase, and context occupancy against the model's window. */
export function PhaseUsage({ detail, attempts }: { detail: PhaseDetail; attempts: Attempt[] }) {
  const p = detail.phase;
  const sends = attempts.filter((a) => a.span !== undefined);
  const agent = detail.agents.find((a) => a.agent === p.owner);
  return (
    <div class="usage">
      <table class="table usage-table">
        <thead>
          <tr>
            <th>Send</th>
            <th class="num">Duration</th>
            <th class="num">In</th>
            <th class="num">Out</th>
            <th class="num">Cache read</th>
            <th class="num">Cache write</th>
            <th class="num">Cost</th>
            <th class="num">Context</th>
          </tr>
        </thead>
        <tbody>
          {sends.map((a) => {
            const u = a.summary.usage ?? {};
            return (
              <tr key={a.key}>
                <td>
                  #{a.attempt} {reasonLabel(a.reason)} ({a.agent})
                </td>
                <td class="num">{formatDuration(a.span?.duration_ms)}</td>
                <td class="num">{formatTokens(u.input_tokens ?? 0)}</td>
                <td class="num">{formatTokens(u.output_tokens ?? 0)}</td>
                <td class="num">{formatTokens(u.cache_read_tokens ?? 0)}</td>
                <td class="num">{formatTokens(u.cache_write_tokens ?? 0)}</td>
                <td class="num">{formatCost(u.cost ?? 0)}</td>
                <td class="num">{formatTokens(a.summary.context_tokens ?? null)}</td>
              </tr>
            );
          })}
          <tr class="total">
            <td>Phase total</td>
            <td class="num">{formatDuration(p.duration_ms)}</td>
            <td class="num">{formatTokens(p.input_tokens)}</td>
            <td class="num">{formatTokens(p.output_tokens)}</td>
            <td class="num">{formatTokens(p.cache_read_tokens)}</td>
            <td class="num">{formatTokens(p.cache_write_tokens)}</td>
            <td class="num">{formatCost(p.cost_usd)}</td>
            <td class="num">{formatTokens(p.context_tokens)}</td>
          </tr>
        </tbody>
      </table>
      <ContextBar tokens={p.context_tokens} agent={agent} />
    </div>
  );
}
