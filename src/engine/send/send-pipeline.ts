import type { OpenSendHook, SendOutcome, SendSettlement } from "../../api/send-hook.js";
import type { AgentSendResult, ToolCall } from "../../runtimes/runtime.js";
import type { CallContext } from "../call-context.js";
import { type SendInput, sendToAgent } from "./send-to-agent.js";

/** A send's result and why its hooks say the phase must fail (null: it may go on). */
export interface HookedSend {
  result: AgentSendResult;
  failure: string | null;
}

/**
 * One send through the call's hooks: each is opened before the send (in order), sees every tool call
 * as it streams, and is settled after the send whatever its outcome, even when the send threw. Each
 * finding becomes one `error` event and one reporter line; the failures of all hooks are joined.
 * Rejects when a hook fails to open or settle, or with the send's own exception.
 */
export async function sendThroughHooks(context: CallContext, input: SendInput): Promise<HookedSend> {
  const { run, agent, phase } = context;
  const info = {
    adwId: run.adwId,
    agent: agent.config.name,
    phase: phase.row,
    attempt: input.attempt,
    reason: input.reason,
    sandboxed: agent.sandbox.boxed,
  };
  const open: OpenSendHook[] = [];
  try {
    for (const hook of phase.hooks) open.push(await hook.open(info));
  } catch (error) {
    // The hooks opened so far still settle: they may hold state for this send (a boundary's registry).
    await settleAll(context, open, { kind: "threw", error, toolCalls: [] }).catch(() => null);
    throw error;
  }
  const toolCalls: ToolCall[] = [];
  // Kept only for a hook whose settle reads them.
  const keep = open.some((hook) => hook.readsToolCalls !== false);
  const watch = (call: ToolCall) => {
    const seen = readOnly(call);
    if (keep) toolCalls.push(seen);
    for (const hook of open) hook.onToolCall?.(seen);
  };
  let result: AgentSendResult;
  try {
    result = await sendToAgent(context, input, watch);
  } catch (error) {
    // Even a send that threw must not keep what its hooks would undo.
    await settleAll(context, open, { kind: "threw", error, toolCalls }).catch(() => null);
    throw error;
  }
  const outcome = { kind: "result", result: Object.freeze({ ...result }), toolCalls } as const;
  return { result, failure: await settleAll(context, open, outcome) };
}

/**
 * What a hook is shown is read-only (docs/send-hooks.md): a hook watches a send, it cannot rewrite the
 * call the trace and the terminal print, nor the reply the phase judges. Its `args` are frozen at the
 * top level in place: they are traced after the hooks saw them.
 */
function readOnly(call: ToolCall): ToolCall {
  if (typeof call.args === "object" && call.args !== null) Object.freeze(call.args);
  return Object.freeze({ ...call });
}

async function settleAll(
  context: CallContext,
  open: readonly OpenSendHook[],
  shown: SendOutcome,
): Promise<string | null> {
  const outcome = Object.freeze({ ...shown, toolCalls: Object.freeze([...shown.toolCalls]) });
  const failures: string[] = [];
  let firstError: unknown;
  for (const hook of open) {
    let settlement: SendSettlement;
    try {
      settlement = await hook.settle(outcome);
    } catch (error) {
      firstError ??= error;
      continue;
    }
    report(context, settlement);
    if (settlement.failure !== null) failures.push(settlement.failure);
  }
  if (firstError !== undefined) throw firstError;
  return failures.length > 0 ? failures.join("; ") : null;
}

function report({ run, agent, phase }: CallContext, settlement: SendSettlement): void {
  for (const finding of settlement.findings) {
    run.trace.event({
      type: "error",
      name: finding.name,
      phaseId: phase.row.id,
      agent: agent.config.name,
      ok: false,
      payload: finding.payload,
    });
    run.reporter.log(finding.line, phase.row);
  }
}
