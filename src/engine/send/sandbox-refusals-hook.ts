/**
 * A write the box refused reaches the agent as its tool's own error (EROFS, EACCES); this send hook
 * reads those errors in the tool calls of a boxed send and traces each refused path once, as a
 * `boundary` finding. It never fails the phase: nothing was written, and the agent saw the refusal.
 */

import type { SendFinding, SendHook } from "../../api/send-hook.js";
import type { ToolCall } from "../../runtimes/runtime.js";

const REFUSED = /Read-only file system|EROFS|Permission denied|EACCES|Operation not permitted|EPERM/i;

const REASON = /:\s*(?:Read-only file system|Permission denied|Operation not permitted)/i;
/** Words shells and tools put right before an unquoted path they could not write. */
const BEFORE_PATH =
  /(?:cannot create(?: regular file| directory)?|cannot touch|cannot open|can't create|cannot remove)\s+(?=\/)/i;

/** Paths a refusal message names: quoted (`'/x'`), after `cannot create` and the like, or just before the reason. */
export function refusedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const line of text.split("\n")) {
    if (!REFUSED.test(line)) continue;
    const quoted = [...line.matchAll(/['"`\u2018\u2019](\/[^'"`\u2018\u2019\n]+)['"`\u2018\u2019]/g)];
    for (const match of quoted) if (match[1]) found.add(match[1]);
    if (quoted.length > 0) continue;
    const reason = REASON.exec(line);
    if (reason === null) continue;
    const head = line.slice(0, reason.index);
    const before = BEFORE_PATH.exec(head);
    // Without a telling word the path is the last word that starts with a slash (`bash: /x: …`).
    const start = before !== null ? before.index + before[0].length : head.lastIndexOf(" /") + 1;
    const file = head.slice(start);
    if (file.startsWith("/")) found.add(file);
  }
  return [...found];
}

function refusalsOf(call: ToolCall): string[] {
  if (call.ok && !REFUSED.test(call.result)) return [];
  const paths = refusedPaths(call.result);
  if (paths.length > 0) return paths;
  // A write tool's own error may not repeat the path: its argument names it.
  const args = call.args as { path?: unknown; file_path?: unknown } | null;
  const named =
    typeof args?.path === "string" ? args.path : typeof args?.file_path === "string" ? args.file_path : null;
  return REFUSED.test(call.result) && named !== null ? [named] : [];
}

export const sandboxRefusalsHook: SendHook = {
  name: "sandbox_refusals",
  open(send) {
    const refused = new Map<string, ToolCall>();
    return {
      readsToolCalls: false,
      onToolCall(call) {
        if (send.sandboxed !== true) return;
        for (const file of refusalsOf(call)) if (!refused.has(file)) refused.set(file, call);
      },
      settle() {
        const findings: SendFinding[] = [...refused].map(([file, call]) => ({
          name: "boundary",
          payload: { boundary: "sandbox_refused", path: file, tool: call.tool, tool_call: call.name },
          line: `boundary: the sandbox refused ${file} (${call.name})`,
        }));
        return { findings, failure: null };
      },
    };
  },
};
