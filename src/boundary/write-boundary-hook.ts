import type { SendHook } from "../api/send-hook.js";
import type { WriteBoundary } from "./write-boundary.js";
import {
  type BoundaryBreach,
  breachEventName,
  breachLabel,
  breachPayload,
  breachReason,
  keptCopyText,
} from "./write-boundary-breach.js";

function breachLine(agent: string, breach: BoundaryBreach): string {
  const outcome = breach.restored
    ? `restored${breach.note ? ` (${breach.note})` : ""}`
    : `not restored (${breach.note ?? "unknown reason"})`;
  const kept = keptCopyText(breach);
  return `! ${agent} wrote outside its boundary: ${breachLabel(breach)}, ${outcome}${kept ? `; ${kept}` : ""}`;
}

/**
 * The agent's write boundary as a send hook: a checkpoint before each send, the tool calls' paths
 * noted as they stream, and after the send, whatever its outcome (a failed or timed-out agent may
 * still have written), every change outside `writes` or inside `protected_files` restored and
 * reported as one finding each; any breach fails the phase. Settling rejects only when the boundary
 * cannot snapshot the run root (git failing in a work tree).
 */
export function writeBoundaryHook(boundary: WriteBoundary): SendHook {
  return {
    name: "write_boundary",
    async open(send) {
      const checkpoint = await boundary.checkpoint(send.sandboxed === true);
      return {
        // The boundary records what it needs of each call as it streams.
        readsToolCalls: false,
        onToolCall(call) {
          checkpoint.noteToolCall(call);
        },
        async settle() {
          const breaches = await checkpoint.settle([]);
          return {
            findings: breaches.map((breach) => ({
              name: breachEventName(breach),
              payload: breachPayload(breach),
              line: breachLine(send.agent, breach),
            })),
            failure: breaches.length > 0 ? breachReason(send.agent, breaches) : null,
          };
        },
      };
    },
  };
}
