import { type SendContext, type SendInput, sendToAgent } from "../engine/send-to-agent.js";
import type { AgentSendResult, ToolCall } from "../runtimes/runtime.js";
import type { RunReporter } from "../session/reporter.js";
import type { BoundaryCheckpoint, WriteBoundary } from "./write-boundary.js";
import { type BoundaryBreach, breachEventName, breachLabel, breachPayload } from "./write-boundary-breach.js";

/** A send's result and what it wrote outside the agent's boundary (already undone where possible). */
export interface BoundedSend {
  result: AgentSendResult;
  breaches: BoundaryBreach[];
}

/** Passes every report on, keeping the tool calls of this send and telling the boundary of each. */
function recordingReporter(
  reporter: RunReporter,
  calls: ToolCall[],
  checkpoint: BoundaryCheckpoint,
): RunReporter {
  return {
    sessionStarted: (session, dir, joined) => reporter.sessionStarted(session, dir, joined),
    phaseStarted: (phase) => reporter.phaseStarted(phase),
    phaseEnded: (phase) => reporter.phaseEnded(phase),
    toolCall: (phase, call) => {
      calls.push(call);
      checkpoint.noteToolCall(call);
      reporter.toolCall(phase, call);
    },
    log: (message, phase) => reporter.log(message, phase),
    finished: (session, phases) => reporter.finished(session, phases),
  };
}

/**
 * One send inside the agent's write boundary: checkpoint, send, then settle, whatever the send's
 * outcome (a failed or timed-out agent may still have written). Each breach becomes one `error`
 * event and one reporter line. With `boundary` null this is a plain send. Rejects only when the
 * boundary cannot snapshot the run root (git failing in a work tree).
 */
export async function sendWithinBoundary(
  context: SendContext,
  boundary: WriteBoundary | null,
  input: SendInput,
): Promise<BoundedSend> {
  if (boundary === null) return { result: await sendToAgent(context, input), breaches: [] };
  const checkpoint = await boundary.checkpoint();
  const calls: ToolCall[] = [];
  let result: AgentSendResult;
  try {
    result = await sendToAgent(
      { ...context, reporter: recordingReporter(context.reporter, calls, checkpoint) },
      input,
    );
  } catch (error) {
    // Even a send that threw must not keep its forbidden writes.
    report(context, await checkpoint.settle(calls).catch(() => []));
    throw error;
  }
  const breaches = await checkpoint.settle(calls);
  report(context, breaches);
  return { result, breaches };
}

function report(context: SendContext, breaches: BoundaryBreach[]): void {
  for (const breach of breaches) {
    context.trace.event({
      type: "error",
      name: breachEventName(breach),
      phaseId: context.phase.id,
      agent: context.agent.name,
      ok: false,
      payload: breachPayload(breach),
    });
    context.reporter.log(
      `! ${context.agent.name} wrote outside its boundary: ${breachLabel(breach)}, ${breach.restored ? `restored${breach.note ? ` (${breach.note})` : ""}` : `not restored (${breach.note ?? "unknown reason"})`}`,
      context.phase,
    );
  }
}
