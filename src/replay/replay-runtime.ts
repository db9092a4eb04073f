/**
 * The runtime every agent of a replay uses: each send is answered with the recorded reply of the
 * matching send (same phase position, same agent, same order within the phase, corrections included).
 * No process starts; a send the record lacks stops the replay instead of inventing a reply.
 */

import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import {
  type AgentSendRequest,
  type AgentSendResult,
  emptyUsage,
  type Runtime,
} from "../runtimes/runtime.js";
import { replayToolCalls } from "./replay-effects.js";
import type { ReplayState } from "./replay-state.js";

/** The runtime id every agent of a replay is switched to. */
export const REPLAY_RUNTIME_ID = "sssf_replay";

function refused(error: string): AgentSendResult {
  return { ok: false, text: "", usage: emptyUsage(), contextTokens: null, errorKind: "aborted", error };
}

/**
 * Before the first answered send: the files the run's agents left in its `context_handoff/` are put in
 * the replay's, so gates that check claimed artifacts there find them as the record's gates did.
 */
function handOverFiles(state: ReplayState, into: string | undefined): void {
  if (state.handedOver || into === undefined) return;
  state.handedOver = true;
  const from = path.join(state.record.sessionDir, "context_handoff");
  if (existsSync(from)) cpSync(from, into, { recursive: true, force: false, errorOnExist: false });
}

/** A runtime answering from `state.record`. */
export function replayRuntime(state: ReplayState): Runtime {
  return {
    id: REPLAY_RUNTIME_ID,
    specVersion: "sssf-runtime/1",
    async send(request: AgentSendRequest, observer): Promise<AgentSendResult> {
      const slot = state.slot.getStore();
      if (slot === undefined) {
        const why = `${request.agent}: a send outside any agent call has no recorded reply`;
        state.stopAt({ position: 0, phase: "", agent: request.agent, send: null, why, not_in_record: true });
        return refused(why);
      }
      const n = state.nextSend(slot.position, request.agent);
      const phase = state.phaseAt(slot.position);
      const mine = (phase?.attempts ?? []).filter((attempt) => attempt.agent === request.agent);
      const reply = mine[n - 1];
      if (reply === undefined) {
        const why =
          mine.length === 0
            ? `not in the record: ${slot.phase} (position ${slot.position}) has no recorded send of ${request.agent}`
            : `not in the record: ${slot.phase} (position ${slot.position}) recorded ${mine.length} send(s) of ${request.agent}; the current code asks for send ${n}`;
        state.stopAt({
          position: slot.position,
          phase: slot.phase,
          agent: request.agent,
          send: n,
          why,
          not_in_record: true,
        });
        return refused(why);
      }
      if (reply.failed !== undefined)
        return { ...refused(reply.failed.error), text: reply.rawText, errorKind: reply.failed.kind };
      // Forced into a box (SSSF_SANDBOX), the request names box paths: the files go to the host's.
      const box = request.sandbox;
      const handoff =
        box === undefined
          ? request.contextHandoffDir
          : box.writable.find((dir) => dir.box === request.contextHandoffDir)?.host;
      handOverFiles(state, handoff);
      const { session, sessionDir } = state.record;
      const from = [session.worktree, session.cwd].filter((dir): dir is string => dir !== null);
      replayToolCalls(
        reply.toolCalls,
        {
          from: from.sort((a, b) => b.length - a.length),
          fromHandoff: path.join(sessionDir, "context_handoff"),
          root: box?.hostCwd ?? request.cwd,
          handoff,
        },
        request.agent,
        observer,
      );
      observer.onText?.(reply.rawText);
      return { ok: true, text: reply.rawText, usage: emptyUsage(), contextTokens: null };
    },
  };
}
