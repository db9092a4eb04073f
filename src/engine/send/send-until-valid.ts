import type { SendReason } from "../../api/send-hook.js";
import type { EnvelopeOf, OutputType } from "../../envelope/output-type.js";
import type { EnvelopeProblem } from "../../envelope/parse-envelope.js";
import { PhaseFailedError } from "../../errors/phase-failed-error.js";
import type { AgentSendResult } from "../../runtimes/runtime.js";
import type { EnvelopeRow } from "../../trace/events.js";
import type { CallContext } from "../call-context.js";
import type { CallContract } from "../call-contract.js";
import { CorrectionsExhaustedError } from "../corrections-exhausted.js";
import { type SendRoute, sendAroundLimits } from "./rate-limit-send.js";

/** Where the call stands between sends: the next message, why it is sent, and how many went before. */
export interface CallProgress {
  system: string;
  message: string;
  reason: SendReason;
  attempt: number;
  /** Where the call's sends go after a rate limit moved them to a fallback (absent: the agent itself). */
  route?: SendRoute;
}

/** A valid envelope and its `envelopes` row. */
export interface ValidReply<T extends OutputType> {
  envelope: EnvelopeOf<T>;
  row: EnvelopeRow;
}

export function formatProblems(problems: EnvelopeProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ");
}

function keepTail(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 4 || Buffer.byteLength(text) <= maxBytes) return text;
  return Buffer.from(text).subarray(-maxBytes).toString("utf8");
}

function fail(context: CallContext, why: string): never {
  throw new PhaseFailedError(context.phase.row.name, why);
}

/** Records a send that failed (exit, timeout, kill) as an invalid attempt and fails the phase. */
function failedSend(
  context: CallContext,
  type: OutputType,
  progress: CallProgress,
  result: AgentSendResult,
  hookFailure: string | null,
): never {
  const { run, agent, phase } = context;
  run.trace.envelope({
    phase_id: phase.row.id,
    agent: agent.config.name,
    attempt: progress.attempt,
    reason: progress.reason,
    output_type: type.name,
    valid: 0,
    status: null,
    envelope_json: null,
    raw_text: result.text,
    errors: JSON.stringify([{ path: "", message: result.error ?? "agent call failed" }]),
  });
  const failure = `call failed (${result.errorKind}): ${result.error ?? "no detail"}`;
  fail(
    context,
    hookFailure === null ? `agent ${agent.config.name} ${failure}` : `${hookFailure}; the ${failure}`,
  );
}

/** The reply cut to `limits.max_result_bytes` (its tail, where the envelope is), traced when cut. */
function replyText(context: CallContext, result: AgentSendResult): string {
  const { run, agent, phase } = context;
  const text = keepTail(result.text, run.maxResultBytes);
  if (text !== result.text) {
    run.trace.event({
      type: "log",
      name: `${agent.config.name}'s reply (${result.text.length} characters) cut to its last ${run.maxResultBytes} bytes`,
      phaseId: phase.row.id,
      agent: agent.config.name,
      payload: { limit: "limits.max_result_bytes" },
    });
  }
  return text;
}

/**
 * The JSON-fix loop of one round: sends `progress.message`, reads the reply under the call's
 * contract, and while it is invalid sends the correction into the same session, at most
 * `jsonFixAttempts` times. Every attempt is an `envelopes` row; a hook's failure (a write-boundary
 * breach) fails the phase once that attempt's row is recorded. Advances `progress` in place.
 * Throws `PhaseFailedError` when no valid envelope comes.
 */
export async function sendUntilValid<T extends OutputType>(
  context: CallContext,
  contract: CallContract<T>,
  type: T,
  progress: CallProgress,
): Promise<ValidReply<T>> {
  const { run, agent, phase } = context;
  const name = agent.config.name;
  for (let fix = 0; ; fix++) {
    progress.attempt += 1;
    progress.route ??= { entry: 0, waitedMs: 0, waits: 0 };
    const { result, failure } = await sendAroundLimits(
      context,
      {
        systemPrompt: progress.system,
        prompt: progress.message,
        attempt: progress.attempt,
        reason: progress.reason,
        outputSchema: contract.outputJsonSchema,
      },
      progress.route,
    );
    if (!result.ok) failedSend(context, type, progress, result, failure);
    const text = replyText(context, result);
    const parsed = contract.parse(text);
    const row = run.trace.envelope({
      phase_id: phase.row.id,
      agent: name,
      attempt: progress.attempt,
      reason: progress.reason,
      output_type: type.name,
      valid: parsed.ok ? 1 : 0,
      status: parsed.ok ? (parsed.envelope as { status: string }).status : null,
      envelope_json: parsed.ok ? JSON.stringify(parsed.envelope) : null,
      raw_text: text,
      errors: JSON.stringify(parsed.ok ? [] : parsed.problems),
    });
    if (failure !== null) fail(context, failure);
    if (parsed.ok) return { envelope: parsed.envelope, row };
    if (fix >= run.jsonFixAttempts) {
      throw new CorrectionsExhaustedError(
        phase.row.name,
        `${name} gave no valid ${type.name} after ${fix + 1} ${fix === 0 ? "reply" : "replies"}: ${formatProblems(parsed.problems)}`,
      );
    }
    const line = `! invalid ${type.name} (${formatProblems(parsed.problems)}): correction ${fix + 1}/${run.jsonFixAttempts} in the same session`;
    run.trace.event({
      type: "log",
      name: `invalid ${type.name} from ${name}; correction ${fix + 1}/${run.jsonFixAttempts}`,
      phaseId: phase.row.id,
      agent: name,
      ok: false,
      payload: { problems: parsed.problems, shown: [line] },
    });
    run.reporter.log(line, phase.row);
    progress.message = parsed.correction;
    progress.reason = "json_fix";
  }
}
