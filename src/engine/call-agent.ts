import type { CallOptions } from "../api/run-api.js";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import { PhaseFailedError } from "../errors/phase-failed-error.js";
import type { GateReport } from "../gates/gate.js";
import { redactJsonValue } from "../util/secrets/redact-json.js";
import { applyGates } from "./apply-gates.js";
import type { CallContext } from "./call-context.js";
import { type CallContract, callContract } from "./call-contract.js";
import { CorrectionsExhaustedError } from "./corrections-exhausted.js";
import { climbLadder } from "./model-ladder.js";
import { type RenderedCall, renderCall } from "./render-call.js";
import { type CallProgress, sendUntilValid } from "./send/send-until-valid.js";

type Accepted = { status: string; summary: string };

/** Traces the envelope handed to this agent as its `previous` (nothing when there is none). */
function traceHandoff({ run, agent, phase }: CallContext, previous: object | null): void {
  if (previous === null) return;
  run.trace.event({
    type: "handoff",
    name: `previous envelope → ${agent.config.name}`,
    phaseId: phase.row.id,
    agent: agent.config.name,
    payload: { envelope: previous },
  });
}

/** Runs the call's gates on a valid envelope; the failed reports (empty: accepted). */
async function failedGates<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
  envelope: EnvelopeOf<T>,
  envelopeId: string,
): Promise<{ reports: GateReport[]; failed: GateReport[] }> {
  const reports = await applyGates({
    gates: options.gates ?? [],
    envelope,
    envelopeId,
    agent: context.agent.config.name,
    context: context.phase.gateContext,
    phase: context.phase.row,
    trace: context.run.trace,
  });
  return { reports, failed: reports.filter((r) => !r.ok) };
}

/**
 * The agent call (DESIGN §3): render → send → extract and validate the envelope, correcting invalid
 * JSON in the same session at most `jsonFixAttempts` times per round (`sendUntilValid`) →
 * `status: "fail"` fails the phase → gates, whose violations go back into the same session at most
 * `retries` times (the gate loop here). Every attempt is an `envelopes` row. The call's send hooks
 * (the write boundary among them) are settled after every send, whatever its outcome; a hook's
 * failure fails the phase once that attempt's row is recorded. With `format: "markdown"` the reply is
 * the Markdown result contract, corrected by section within the same bounds (rows keep the section
 * names as problem paths; a `failure` report is a valid row that fails the phase with its summary and
 * CRITICAL risks). Throws `PhaseFailedError` when the phase cannot succeed, and UsageError (before any
 * send) for `format: "markdown"` with a type that is not MarkdownResult or an extension of it.
 */
export async function callAgent<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
): Promise<EnvelopeOf<T>> {
  const { contract, rendered, previous, inputs } = prepareCall(context, options);
  const { phase } = context;
  return phase.durable.step("call", inputs, () => {
    // One numbering for every rung's envelopes, so `sssf envelopes` reads as one sequence.
    const progress: CallProgress = { system: "", message: "", reason: "initial", attempt: 0 };
    return liveCall(context, options, { contract, rendered, previous }, progress);
  });
}

/** A call rendered once: its contract, its prompts and the `previous` it was given. */
export interface PreparedCall<T extends OutputType> {
  contract: CallContract<T>;
  rendered: RenderedCall;
  previous: object | null;
}

/** Renders the call of `options` in `context` and says what its durable step is keyed by. */
export function prepareCall<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
): PreparedCall<T> & { inputs: Record<string, unknown> } {
  const contract: CallContract<T> = callContract(options.outputType, options.format);
  const previous = options.previous === undefined ? context.phase.lastEnvelope : options.previous;
  const rendered = renderCall(context, options, contract, previous);
  const inputs = callStepInputs(
    context.agent.config.name,
    options.outputType,
    options.format,
    rendered,
    previous,
  );
  return { contract, rendered, previous, inputs };
}

/**
 * The call, live: the hand-off traced, then the agent's ladder of sends, corrections and gates until
 * an envelope is accepted. `progress.attempt` numbers the envelopes (a best-of phase shares one).
 */
export function liveCall<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
  prepared: PreparedCall<T>,
  progress: CallProgress,
): Promise<EnvelopeOf<T>> {
  traceHandoff(context, prepared.previous);
  return climbLadder(
    context,
    prepared.rendered,
    () => progress.attempt,
    (onRung) => sendAndGate(onRung, options, prepared.contract, prepared.rendered, progress),
  );
}

/**
 * What the call's durable step is keyed by: a resume answers it from the journal while the rendered
 * prompts and `previous` match (their folders named, not spelled: docs/resume.md).
 */
export function callStepInputs(
  agent: string,
  type: OutputType,
  format: CallOptions<OutputType>["format"],
  rendered: RenderedCall,
  previous: object | null,
): Record<string, unknown> {
  return {
    agent,
    output_type: type.name,
    format: format ?? "json",
    system: rendered.system,
    user: rendered.user,
    previous,
  };
}

/**
 * The live call on one model: sends, corrections and gates until accepted or failed, from the rendered
 * prompt in the context's session. `progress.attempt` carries on from earlier rungs.
 */
async function sendAndGate<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
  contract: CallContract<T>,
  rendered: RenderedCall,
  progress: CallProgress,
): Promise<EnvelopeOf<T>> {
  const { run, agent, phase } = context;
  const type = options.outputType;
  progress.system = rendered.system;
  progress.message = rendered.user;
  progress.reason = "initial";
  delete progress.route;

  for (let round = 0; ; round++) {
    const { envelope, row } = await sendUntilValid(context, contract, type, progress);
    const accepted = envelope as EnvelopeOf<T> & Accepted;
    if (accepted.status === "fail") {
      throw new PhaseFailedError(phase.row.name, contract.failureReason(agent.config.name, accepted));
    }
    const { reports, failed } = await failedGates(context, options, accepted, row.id);
    if (failed.length === 0) {
      run.trace.acceptEnvelope(row);
      // The file is a record: secrets redacted. The envelope returned to the workflow stays whole.
      run.files.write(agent.dirs.envelope, `${JSON.stringify(redactJsonValue(accepted), null, 2)}\n`);
      return accepted;
    }
    if (round >= phase.retries) {
      const violations = failed.flatMap((r) => r.violations.map((v) => `${r.gate}: ${v}`));
      throw new CorrectionsExhaustedError(
        phase.row.name,
        `gate violations after ${round} correction(s): ${violations.join("; ")}`,
      );
    }
    const line = `! ${failed.map((r) => `${r.gate}: ${r.violations.join("; ")}`).join(" | ")}: correction ${round + 1}/${phase.retries} in the same session`;
    // The gates' rows hold the violations; this event holds the line the terminal showed.
    run.trace.event({
      type: "log",
      name: `gate correction ${round + 1}/${phase.retries}`,
      phaseId: phase.row.id,
      agent: agent.config.name,
      ok: false,
      payload: { gates: failed.map((r) => r.gate), shown: [line] },
    });
    run.reporter.log(line, phase.row);
    progress.message = contract.gateCorrection(reports);
    progress.reason = "gate_fix";
  }
}
