import { type Gate, type GateContext, GateReport } from "../gates/gate.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseRow } from "../trace/events.js";

/**
 * Runs every gate on an envelope and traces each report (a `gate_results` row with every check,
 * and a `gate_pass`/`gate_fail` event). A gate that throws is a failed gate, not a crash.
 */
export async function applyGates<E>(options: {
  gates: Gate<E>[];
  envelope: E;
  envelopeId: string;
  agent: string;
  context: GateContext;
  phase: PhaseRow;
  trace: SessionTrace;
}): Promise<GateReport[]> {
  const { trace, phase } = options;
  const reports: GateReport[] = [];
  for (const gate of options.gates) {
    const startedAt = new Date();
    let report: GateReport;
    try {
      report = await gate.run(options.envelope, options.context);
    } catch (error) {
      report = new GateReport(gate.name).check("gate", false, `gate threw: ${(error as Error).message}`);
    }
    reports.push(report);
    trace.gateResult({
      phase_id: phase.id,
      envelope_id: options.envelopeId,
      gate: report.gate,
      ok: report.ok ? 1 : 0,
      checks: JSON.stringify(report.checks),
      violations: JSON.stringify(report.violations),
    });
    trace.event({
      type: report.ok ? "gate_pass" : "gate_fail",
      name: `${report.gate}: ${report.ok ? `${report.checks.length} checked` : `${report.violations.length} violation(s)`}`,
      phaseId: phase.id,
      agent: options.agent,
      ok: report.ok,
      startedAt,
      endedAt: new Date(),
      payload: { gate: report.gate, checks: report.checks, violations: report.violations },
    });
  }
  return reports;
}
