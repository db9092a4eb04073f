/**
 * The one door through which anything that must watch an agent's send plugs in: the write boundary,
 * the parallel-path collector, and whatever comes next (spend budgets, secret scanning) without
 * touching the agent call. A hook is opened before each send, sees every tool call as it streams,
 * and is settled after the send whatever its outcome, returning findings that can fail the phase.
 */

import type { AgentSendResult, ToolCall } from "../runtimes/runtime.js";
import type { PhaseRow } from "../trace/events.js";

/** Why a send was made: the first prompt, a JSON correction, or a gate correction. */
export type SendReason = "initial" | "json_fix" | "gate_fix";

/** The send a hook is opened for. */
export interface SendInfo {
  adwId: string;
  /** The agent's name. */
  agent: string;
  phase: PhaseRow;
  /** 1-based send number within the call. */
  attempt: number;
  reason: SendReason;
  /**
   * True when the send runs inside sssf's OS sandbox: the box already keeps every write outside the
   * agent's writable folders from happening, so a hook need not look outside them.
   */
  sandboxed?: boolean;
}

/**
 * How the send ended: the runtime's result (a reply, or a failure as data: exit, timeout, kill), or
 * the exception a send threw. `toolCalls` are the calls seen during the send, in order.
 */
export type SendOutcome =
  | { kind: "result"; result: AgentSendResult; toolCalls: readonly ToolCall[] }
  | { kind: "threw"; error: unknown; toolCalls: readonly ToolCall[] };

/** One thing a hook found, traced as one `error` event and shown as one line. */
export interface SendFinding {
  /** The event's name. */
  name: string;
  /** The event's payload (snake_case wire fields). */
  payload: Record<string, unknown>;
  /** What the person watching the run reads. */
  line: string;
}

/** What settling a hook returns. */
export interface SendSettlement {
  findings: SendFinding[];
  /** Why the phase must fail, or null when it may go on. */
  failure: string | null;
}

/** A hook watching one send. */
export interface OpenSendHook {
  /** Each tool call as it streams, before the terminal shows it. Must not throw. */
  onToolCall?(call: ToolCall): void;
  /**
   * False when `settle` never reads `outcome.toolCalls` (it watched them stream instead): when every
   * hook of a send says so, the send keeps no list of its calls, and `outcome.toolCalls` is empty. An
   * agent flooding 200,000 calls is then not held in memory until it ends. Default true.
   */
  readsToolCalls?: boolean;
  /**
   * After the send, whatever its outcome. Rejecting fails the phase (a hook that cannot tell what
   * happened must not let the phase pass); after a send that threw, a rejection is ignored.
   */
  settle(outcome: SendOutcome): SendSettlement | Promise<SendSettlement>;
}

/**
 * A watcher of sends, opened once per send of the calls it is given to. Opening may snapshot state;
 * a rejection fails the phase before the agent is called.
 *
 * @example
 * const countTools: SendHook = {
 *   name: "count_tools",
 *   open: () => {
 *     let n = 0;
 *     return { onToolCall: () => void n++, settle: () => ({ findings: [], failure: n > 50 ? `${n} tool calls` : null }) };
 *   },
 * };
 */
export interface SendHook {
  readonly name: string;
  open(send: SendInfo): OpenSendHook | Promise<OpenSendHook>;
}

/** Nothing found. */
export const NOTHING_FOUND: SendSettlement = Object.freeze({ findings: [], failure: null }) as SendSettlement;
