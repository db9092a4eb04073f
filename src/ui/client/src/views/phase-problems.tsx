import type { PhaseDetail } from "../../../server/api-types.js";
import { formatClock, parseJson } from "../format.js";

interface Problem {
  key: string;
  kind: string;
  text: string;
  detail?: string;
}

interface BreachPayload {
  path?: string;
  rule?: string;
  restored?: boolean;
  note?: string;
}

function problemsOf(detail: PhaseDetail): Problem[] {
  const problems: Problem[] = [];
  if (detail.phase.error) problems.push({ key: "phase", kind: "Phase failed", text: detail.phase.error });
  for (const event of detail.events) {
    if (event.type === "error") {
      const payload = parseJson(event.payload) as BreachPayload | undefined;
      const breach = payload?.rule !== undefined && payload.path !== undefined;
      problems.push({
        key: event.id,
        kind: breach ? "Write-boundary breach" : "Error",
        text: event.name,
        detail: breach
          ? `${payload?.restored ? "restored" : "NOT restored"}${payload?.note ? ` (${payload.note})` : ""} · ${formatClock(event.started_at)}`
          : formatClock(event.started_at),
      });
    } else if (event.type === "agent_end" && event.ok === 0) {
      problems.push({
        key: event.id,
        kind: "Agent send failed",
        text: event.name,
        detail: formatClock(event.started_at),
      });
    }
  }
  for (const gate of detail.gate_results) {
    if (gate.ok) continue;
    const violations = parseJson(gate.violations);
    const list = Array.isArray(violations) ? violations.map(String) : [gate.violations];
    problems.push({ key: gate.id, kind: `Gate ${gate.gate} failed`, text: list.join("\n") });
  }
  for (const process of detail.processes) {
    if (process.status === "running" || (process.status === "exited" && process.exit_code === 0)) continue;
    const how = process.status === "exited" ? `exit code ${process.exit_code}` : process.status;
    problems.push({
      key: process.id,
      kind: "Agent process",
      text: `pid ${process.pid}: ${how}${process.signal ? ` (${process.signal})` : ""}`,
      detail: process.stderr_tail ?? undefined,
    });
  }
  return problems;
}

/** Errors, write-boundary breaches, failed gates and failed processes, at the top of the phase. */
export function PhaseProblems({ detail }: { detail: PhaseDetail }) {
  const problems = problemsOf(detail);
  if (problems.length === 0) return null;
  return (
    <section class="problems" aria-label="Problems">
      <h2>Problems ({problems.length})</h2>
      <ul>
        {problems.map((p) => (
          <li key={p.key}>
            <strong>{p.kind}</strong>
            <pre class="problem-text">{p.text}</pre>
            {p.detail ? <pre class="problem-detail">{p.detail}</pre> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
