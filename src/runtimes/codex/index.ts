/**
 * The `codex` runtime: drives OpenAI's codex CLI (`codex exec --json`) headlessly. The system prompt
 * goes in a file (`model_instructions_file`), the prompt on stdin; a sssf session maps to one codex
 * thread, created on the first send and continued with `exec resume <thread uuid>`. See
 * docs/runtimes/codex.md.
 */

import { formatDuration } from "../../util/format-duration.js";
import {
  type AgentSendObserver,
  type AgentSendRequest,
  type AgentSendResult,
  emptyUsage,
  type Runtime,
} from "../runtime.js";
import { runCliSend } from "../send-loop/cli-runtime.js";
import { CODEX_ENV } from "./args.js";
import { codexHome } from "./config.js";
import { doctorCodex } from "./doctor.js";
import { createCodexParser } from "./events.js";
import { checkCodexModel } from "./model-check.js";
import { codexNativeReply } from "./output-schema.js";
import { prepareCodexSend } from "./prepare.js";
import { rolloutContextTokens } from "./rollout.js";
import { markRollout, SESSION_FILE_SOURCE, sessionFileCalls } from "./rollout-calls.js";
import { recordedUsage, recordThread, recordUsage } from "./session.js";
import { createStallWatch } from "./stall-watch.js";

/** The argv prefix that runs codex (re-exported for callers that only import the runtime). */
export { codexCommand } from "./prepare.js";

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function sendCodex(request: AgentSendRequest, observer: AgentSendObserver): Promise<AgentSendResult> {
  const who = `agent ${request.agent} (codex)`;
  const log = (message: string) => observer.onLog?.(message);
  const prepared = await prepareCodexSend(request, log);
  if ("kind" in prepared) {
    return {
      ok: false,
      text: "",
      usage: emptyUsage(),
      contextTokens: null,
      nativeSessionId: request.nativeSessionId,
      errorKind: prepared.kind,
      error: `${who}: ${prepared.message}`,
      exitCode: null,
    };
  }
  const { config, threadId } = prepared;
  // Where the thread's session file ends now: the calls after it are this send's.
  const rolloutBefore = markRollout(config.home, threadId);
  const baseline = threadId === null ? undefined : recordedUsage(request.sessionDir, threadId);
  if (threadId !== null && baseline === undefined) {
    log(
      `codex: no usage baseline for thread ${threadId}; this send's usage also counts the thread's turns sssf did not see complete`,
    );
  }

  // Retry lines are output but not progress: a separate watch kills a codex that only retries.
  const stall = new AbortController();
  const watch = createStallWatch(request.timeouts.idleMs, () => stall.abort());
  const signal =
    request.signal === undefined ? stall.signal : AbortSignal.any([request.signal, stall.signal]);
  let lastRetry = "";
  const parser = createCodexParser({
    observer,
    cwd: request.cwd,
    model: prepared.model,
    modelHint: `Valid names are the ones the endpoint of model_provider "${config.modelProvider}" serves (${config.file}).`,
    expectedThreadId: threadId,
    baseline,
    onThread(started) {
      try {
        recordThread(request.sessionDir, request.sessionId, started);
      } catch (error) {
        log(`codex: cannot record thread ${started} in ${request.sessionDir}: ${describe(error)}`);
      }
    },
    onLine(retry) {
      if (retry !== null) lastRetry = retry;
      watch.line(retry !== null);
    },
  });
  const env = { ...request.env, ...prepared.env };
  const result = await runCliSend({ ...request, env, signal }, observer, "codex", {
    command: prepared.argv,
    stdin: request.prompt,
    env: CODEX_ENV,
    parser,
  });
  watch.stop();

  const thread = result.nativeSessionId;
  const cumulative = parser.cumulative();
  if (thread !== undefined && cumulative !== null) {
    try {
      recordUsage(request.sessionDir, thread, cumulative);
    } catch (error) {
      log(`codex: cannot record usage of thread ${thread}: ${describe(error)}`);
    }
  }
  if (thread !== undefined) {
    result.contextTokens = rolloutContextTokens(config.home, thread);
    reportSessionFileCalls(config.home, thread, rolloutBefore, parser.toolItems(), observer);
  }
  if (watch.stalled && request.signal?.aborted !== true) {
    result.errorKind = "idle_timeout";
    result.error = `${who} made no progress for ${formatDuration(request.timeouts.idleMs)}: codex only retried its connection to the model endpoint (${lastRetry}); killed its process group`;
  }
  const native = codexNativeReply(prepared.outputSchema, result.text, result.ok);
  result.text = native.text;
  try {
    observer.onLog?.(native.message, native.details);
  } catch {
    // The observer's failure is not the send's.
  }
  return result;
}

/**
 * Reports the send's tool calls that codex's exec stream left out (a rejected patch, a failed
 * `write_stdin`…), read from the thread's session file, with one log line naming the file. Never throws.
 */
function reportSessionFileCalls(
  home: string,
  thread: string,
  before: ReturnType<typeof markRollout>,
  streamItems: number,
  observer: AgentSendObserver,
): void {
  const found = sessionFileCalls(home, thread, before, streamItems);
  if (found === null || found.calls.length === 0) return;
  try {
    for (const call of found.calls) observer.onToolCall?.(call);
    const count = found.calls.length;
    observer.onLog?.(
      `codex: ${count} tool call${count === 1 ? "" : "s"} missing from codex's --json stream, read from its session file ${found.file}`,
      { source: SESSION_FILE_SOURCE, session_file: found.file, tool_calls: count },
    );
  } catch {
    // The observer's failure is not the send's.
  }
}

/**
 * Runtime `codex`. Contract: `send` never throws; every failure (unknown tool or model, CLI error,
 * stream error, timeout) is `{ ok: false, errorKind, error }`, after codex's process group is gone.
 */
export const codexRuntime: Runtime = {
  id: "codex",
  specVersion: "sssf-runtime/1",
  send: sendCodex,
  doctor: doctorCodex,
  checkModel: checkCodexModel,
  statePaths: (env) => ({ folders: [codexHome(env)] }),
};
