import { formatCost, formatDuration, formatTokens, parseJson } from "../format.js";
import { Fold, JsonBlock, sizeOf, TextBlock } from "../text.js";
import { type Attempt, reasonLabel } from "./attempts-model.js";

interface Check {
  item?: unknown;
  ok?: unknown;
  note?: unknown;
}

function EnvelopeResult({ attempt }: { attempt: Attempt }) {
  const envelope = attempt.envelope;
  if (envelope === undefined) {
    return (
      <p class="muted">
        {attempt.span?.ended_at ? "No envelope recorded for this send." : "Waiting for the reply…"}
      </p>
    );
  }
  const errors = parseJson(envelope.errors);
  const problems = Array.isArray(errors) ? (errors as { path?: string; message?: string }[]) : [];
  return (
    <div class={`envelope ${envelope.valid ? "valid" : "invalid"}`}>
      <p>
        <strong>
          {envelope.valid ? "✓ Valid" : "✕ Invalid"} {envelope.output_type}
        </strong>
        {envelope.status ? (
          <>
            {" "}
            · status <span class="mono">{envelope.status}</span>
          </>
        ) : null}
      </p>
      {problems.length > 0 ? (
        <ul class="envelope-errors">
          {problems.map((p, i) => (
            <li key={i}>
              <span class="mono">{p.path || "(root)"}</span>: {String(p.message ?? "")}
            </li>
          ))}
        </ul>
      ) : null}
      {envelope.envelope_json ? (
        <Fold title="Parsed envelope" open={Boolean(envelope.valid)}>
          <JsonBlock
            value={parseJson(envelope.envelope_json) ?? envelope.envelope_json}
            cut={envelope._cut}
          />
        </Fold>
      ) : null}
      <Fold title={`Raw reply (${sizeOf(envelope.raw_text)})`} open={!envelope.valid}>
        <TextBlock text={envelope.raw_text} cut={envelope._cut} />
      </Fold>
    </div>
  );
}

function Gates({ attempt }: { attempt: Attempt }) {
  if (attempt.gates.length === 0) return null;
  return (
    <div class="gates">
      {attempt.gates.map((gate) => {
        const checks = parseJson(gate.checks);
        const list = Array.isArray(checks) ? (checks as Check[]) : [];
        const violations = parseJson(gate.violations);
        return (
          <div key={gate.id} class={`gate ${gate.ok ? "ok" : "failed"}`} data-gate={gate.gate}>
            <p>
              <strong>
                {gate.ok ? "✓" : "✕"} gate {gate.gate}
              </strong>{" "}
              · {list.length} check(s)
            </p>
            {Array.isArray(violations) && violations.length > 0 ? (
              <ul class="violations">
                {violations.map((v, i) => (
                  <li key={i}>{String(v)}</li>
                ))}
              </ul>
            ) : null}
            <Fold title="Checks and evidence" open={!gate.ok}>
              <ul class="checks">
                {list.map((check, i) => (
                  <li key={i} class={check.ok ? "ok" : "failed"}>
                    {check.ok ? "✓ " : "✕ "}
                    <span class="mono">{String(check.item ?? "")}</span>
                    {check.note ? <span class="muted"> — {String(check.note)}</span> : null}
                  </li>
                ))}
              </ul>
            </Fold>
          </div>
        );
      })}
    </div>
  );
}

function outcome(attempt: Attempt): string {
  if (attempt.envelope === undefined) return attempt.summary.error ? "outcome-invalid" : "outcome-pending";
  const gatesFailed = attempt.gates.some((g) => !g.ok);
  return attempt.envelope.valid && !gatesFailed ? "outcome-valid" : "outcome-invalid";
}

/**
 * Every send of the phase in order: the prompt or correction sent, what the send cost, the envelope
 * attempt (valid or not, with its errors and raw text) and the gates run on it. The cost of being
 * wrong is the attempts after the first.
 */
export function PhaseAttempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <p class="muted">No agent sends or envelopes in this phase.</p>;
  return (
    <ol class="attempts">
      {attempts.map((a) => {
        const usage = a.summary.usage;
        return (
          <li key={a.key} class={`attempt ${outcome(a)}`} data-attempt={a.attempt}>
            <h3>
              {a.span === undefined && a.prompt === undefined && a.envelope
                ? `Envelope ${a.attempt} · handed off by code · ${a.agent}`
                : `Attempt ${a.attempt} · ${reasonLabel(a.reason)} · ${a.agent}`}
            </h3>
            {a.prompt ? (
              <Fold
                title={`${a.reason === "initial" ? "Prompt sent" : "Correction sent"} (${sizeOf(a.prompt.text)})`}
                open={a.reason !== "initial"}
              >
                <TextBlock text={a.prompt.text} cut={a.prompt.cut} />
              </Fold>
            ) : null}
            {a.span ? (
              <p class="send-line">
                {a.span.ended_at ? `send took ${formatDuration(a.span.duration_ms)}` : "sending…"}
                {usage
                  ? ` · ${formatTokens(usage.input_tokens ?? 0)} in / ${formatTokens(usage.output_tokens ?? 0)} out · ${formatCost(usage.cost ?? 0)}`
                  : ""}
                {a.summary.error ? (
                  <span class="error-text">
                    {" "}
                    · {a.summary.error_kind}: {a.summary.error}
                  </span>
                ) : null}
              </p>
            ) : null}
            <EnvelopeResult attempt={a} />
            <Gates attempt={a} />
          </li>
        );
      })}
    </ol>
  );
}
