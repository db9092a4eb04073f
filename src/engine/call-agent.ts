import { readFileSync, writeFileSync } from "node:fs";
import type { CallOptions } from "../api/run-api.js";
import type { WriteBoundary } from "../boundary/write-boundary.js";
import { breachReason } from "../boundary/write-boundary-breach.js";
import { sendWithinBoundary } from "../boundary/write-boundary-send.js";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import type { EnvelopeProblem } from "../envelope/parse-envelope.js";
import { PhaseFailedError } from "../errors/phase-failed-error.js";
import type { GateContext } from "../gates/gate.js";
import { applyGates } from "./apply-gates.js";
import { type CallContract, callContract } from "./call-contract.js";
import { renderPrompt } from "./prompts.js";
import type { SendContext } from "./send-to-agent.js";

export interface CallContext extends SendContext {
  jsonFixAttempts: number;
  retries: number;
  /** `limits.max_result_bytes`: a longer reply is cut to its tail (where the envelope is) before parsing. */
  maxResultBytes: number;
  contextHandoffDir: string;
  /** The run's last accepted envelope, the default `previous`. */
  lastEnvelope: object | null;
  gateContext: GateContext;
  /** The agent's write boundary, settled after every send; null enforces nothing. */
  boundary: WriteBoundary | null;
}

function keepTail(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 4 || Buffer.byteLength(text) <= maxBytes) return text;
  return Buffer.from(text).subarray(-maxBytes).toString("utf8");
}

function formatProblems(problems: EnvelopeProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ");
}

function renderCall<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
  contract: CallContract<T>,
  previous: object | null,
) {
  const values = {
    prompt: options.prompt,
    previous_envelope: previous === null ? "(none)" : JSON.stringify(previous, null, 2),
    context_handoff_dir: context.contextHandoffDir,
    adw_id: context.adwId,
    output_schema: contract.outputSchema,
  };
  const systemTemplate = readFileSync(context.agent.systemPromptPath, "utf8");
  const userTemplate = readFileSync(context.agent.userPromptPath, "utf8");
  let user = renderPrompt(userTemplate, values);
  // The output contract always reaches the agent, even when user.md does not carry it.
  if (!/^##\s+Report\b/m.test(userTemplate) && !userTemplate.includes("{{output_schema}}")) {
    user = `${user.trimEnd()}\n\n${contract.reportSection}\n`;
  }
  return { system: renderPrompt(systemTemplate, values), user };
}

/**
 * The agent call (DESIGN §3): render → send → extract and validate the envelope, correcting invalid
 * JSON in the same session at most `jsonFixAttempts` times per round → `status: "fail"` fails the
 * phase → gates, whose violations go back into the same session at most `retries` times. Every
 * attempt is an `envelopes` row. The write boundary is settled after every send, whatever its outcome;
 * a breach fails the phase once that attempt's row is recorded. With `format: "markdown"` the reply is
 * the Markdown result contract, corrected by section within the same bounds (rows keep the section
 * names as problem paths; a `failure` report is a valid row that fails the phase with its summary and
 * CRITICAL risks). Throws `PhaseFailedError` when the phase cannot succeed, and UsageError (before any
 * send) for `format: "markdown"` with a type that is not MarkdownResult or an extension of it.
 */
export async function callAgent<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
): Promise<EnvelopeOf<T>> {
  const { trace, phase, agent } = context;
  const type = options.outputType;
  const contract = callContract(type, options.format);
  const previous = options.previous === undefined ? context.lastEnvelope : options.previous;
  if (previous !== null) {
    trace.event({
      type: "handoff",
      name: `previous envelope → ${agent.name}`,
      phaseId: phase.id,
      agent: agent.name,
      payload: { envelope: previous },
    });
  }
  const rendered = renderCall(context, options, contract, previous);
  let message = rendered.user;
  let reason: "initial" | "json_fix" | "gate_fix" = "initial";
  let attempt = 0;
  const fail = (why: string): never => {
    throw new PhaseFailedError(phase.name, why);
  };

  for (let round = 0; ; round++) {
    let envelope: EnvelopeOf<T> | undefined;
    let envelopeRowId = "";
    for (let fix = 0; envelope === undefined; fix++) {
      attempt += 1;
      const { result, breaches } = await sendWithinBoundary(context, context.boundary, {
        systemPrompt: rendered.system,
        prompt: message,
        attempt,
        reason,
      });
      const breached = breaches.length > 0 ? breachReason(agent.name, breaches) : null;
      if (!result.ok) {
        trace.envelope({
          phase_id: phase.id,
          agent: agent.name,
          attempt,
          reason,
          output_type: type.name,
          valid: 0,
          status: null,
          envelope_json: null,
          raw_text: result.text,
          errors: JSON.stringify([{ path: "", message: result.error ?? "agent call failed" }]),
        });
        const failure = `call failed (${result.errorKind}): ${result.error ?? "no detail"}`;
        fail(breached === null ? `agent ${agent.name} ${failure}` : `${breached}; the ${failure}`);
      }
      const text = keepTail(result.text, context.maxResultBytes);
      if (text !== result.text) {
        trace.event({
          type: "log",
          name: `${agent.name}'s reply (${result.text.length} characters) cut to its last ${context.maxResultBytes} bytes`,
          phaseId: phase.id,
          agent: agent.name,
          payload: { limit: "limits.max_result_bytes" },
        });
      }
      const parsed = contract.parse(text);
      const row = trace.envelope({
        phase_id: phase.id,
        agent: agent.name,
        attempt,
        reason,
        output_type: type.name,
        valid: parsed.ok ? 1 : 0,
        status: parsed.ok ? (parsed.envelope as { status: string }).status : null,
        envelope_json: parsed.ok ? JSON.stringify(parsed.envelope) : null,
        raw_text: text,
        errors: JSON.stringify(parsed.ok ? [] : parsed.problems),
      });
      if (breached !== null) fail(breached);
      if (parsed.ok) {
        envelope = parsed.envelope;
        envelopeRowId = row.id;
        break;
      }
      if (fix >= context.jsonFixAttempts) {
        fail(
          `${agent.name} gave no valid ${type.name} after ${fix + 1} ${fix === 0 ? "reply" : "replies"}: ${formatProblems(parsed.problems)}`,
        );
      }
      trace.event({
        type: "log",
        name: `invalid ${type.name} from ${agent.name}; correction ${fix + 1}/${context.jsonFixAttempts}`,
        phaseId: phase.id,
        agent: agent.name,
        ok: false,
        payload: { problems: parsed.problems },
      });
      context.reporter.log(
        `! invalid ${type.name} (${formatProblems(parsed.problems)}): correction ${fix + 1}/${context.jsonFixAttempts} in the same session`,
      );
      message = parsed.correction;
      reason = "json_fix";
    }

    const accepted = envelope as EnvelopeOf<T> & { status: string; summary: string };
    if (accepted.status === "fail") {
      fail(contract.failureReason(agent.name, accepted));
    }
    const gates = options.gates ?? [];
    const reports = await applyGates({
      gates,
      envelope: accepted,
      envelopeId: envelopeRowId,
      agent: agent.name,
      context: context.gateContext,
      phase,
      trace,
    });
    const failed = reports.filter((r) => !r.ok);
    if (failed.length === 0) {
      writeFileSync(context.dirs.envelope, `${JSON.stringify(accepted, null, 2)}\n`);
      return accepted;
    }
    if (round >= context.retries) {
      const violations = failed.flatMap((r) => r.violations.map((v) => `${r.gate}: ${v}`));
      fail(`gate violations after ${round} correction(s): ${violations.join("; ")}`);
    }
    context.reporter.log(
      `! ${failed.map((r) => `${r.gate}: ${r.violations.join("; ")}`).join(" | ")}: correction ${round + 1}/${context.retries} in the same session`,
    );
    message = contract.gateCorrection(reports);
    reason = "gate_fix";
  }
}
