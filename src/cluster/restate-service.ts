/**
 * The Restate workflow `sssfRun` (docs/cluster.md): one workflow per run, keyed by its adw_id.
 * - `run` executes it on the worker Restate reached; when that worker dies Restate retries the handler
 *   on another, which resumes the run from the shared trace's journal.
 * - `approve` resolves an engineer phase's durable promise, from any machine.
 * - `answer` waits on that promise: the worker's engineer phase calls it, and a worker that takes the
 *   run over gets an answer given while nobody was waiting.
 * The `run` handler makes no journal entry of its own (its phases are journaled in the trace, where
 * every worker reads them), so a replay can never diverge from Restate's journal.
 */

import type * as Restate from "@restatedev/restate-sdk";
import { isSssfError, type SssfErrorCode } from "../errors/sssf-error.js";
import {
  answerPromise,
  ClusterAnswer,
  ClusterRunRequest,
  type ClusterRunResult,
  RUN_SERVICE,
} from "./cluster-wire.js";

/** How long one execution of a run may go without a journal entry before Restate gives up on it. */
export interface RunTimeouts {
  /** Restate's inactivity timeout, then its abort timeout: both must exceed the longest run. */
  runMs: number;
}

/** Loads the SDK: only `sssf worker` needs it. */
export async function loadRestateSdk(): Promise<typeof Restate> {
  return import("@restatedev/restate-sdk");
}

/** Bad input from a caller is final: Restate must not retry it. */
function parsed<T>(
  sdk: typeof Restate,
  schema: { safeParse(value: unknown): { success: boolean; data?: T; error?: { message: string } } },
  value: unknown,
  what: string,
): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new sdk.TerminalError(`${what}: ${result.error?.message ?? "invalid"}`, { errorCode: 400 });
  return result.data as T;
}

/**
 * Errors the run's own commit causes, the same on every worker and every retry: a bad flag or
 * workflow, a config the commit holds (or lacks the files of: prompts left untracked), an unknown agent
 * or runtime, a base commit git cannot check out. A busy session, an interrupted worker or a trace out
 * of reach are not among them: another attempt may succeed.
 */
const FINAL_CODES: ReadonlySet<SssfErrorCode> = new Set<SssfErrorCode>([
  "usage",
  "config_invalid",
  "agent_unknown",
  "runtime_unknown",
  "git_failed",
  "not_a_git_repo",
]);

/**
 * The workflow definition, bound to how this worker executes a run. An error that retrying cannot fix
 * ({@link FINAL_CODES}) fails the invocation for good.
 */
export function runWorkflowService(
  sdk: typeof Restate,
  /** `invocation`: Restate's id of the run's invocation, the same on every retry of it. */
  execute: (request: ClusterRunRequest, invocation: string) => Promise<ClusterRunResult>,
  timeouts: RunTimeouts,
) {
  return sdk.workflow({
    name: RUN_SERVICE,
    handlers: {
      run: async (ctx: Restate.WorkflowContext, input: unknown): Promise<ClusterRunResult> => {
        const request = parsed<ClusterRunRequest>(sdk, ClusterRunRequest, input, "run request");
        if (request.adw_id !== ctx.key)
          throw new sdk.TerminalError(
            `run request: adw_id ${request.adw_id} is not the workflow key ${ctx.key}`,
          );
        try {
          return await execute(request, String(ctx.request().id));
        } catch (error) {
          if (isSssfError(error) && FINAL_CODES.has(error.code))
            throw new sdk.TerminalError(error.message, { errorCode: 400 });
          throw error;
        }
      },
      approve: async (ctx: Restate.WorkflowSharedContext, input: unknown): Promise<{ resolved: boolean }> => {
        const answer = parsed<ClusterAnswer>(sdk, ClusterAnswer, input, "answer");
        const promise = ctx.promise<ClusterAnswer>(answerPromise(answer.key));
        if ((await promise.peek()) !== undefined) return { resolved: false };
        await promise.resolve(answer);
        return { resolved: true };
      },
      answer: async (ctx: Restate.WorkflowSharedContext, input: unknown): Promise<ClusterAnswer> => {
        const { key } = parsed<{ key: string }>(sdk, ClusterAnswer.pick({ key: true }), input, "answer");
        return ctx.promise<ClusterAnswer>(answerPromise(key)).get();
      },
    },
    options: {
      inactivityTimeout: timeouts.runMs,
      abortTimeout: timeouts.runMs,
    },
  });
}
