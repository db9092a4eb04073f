import type { AgentSendObserver, ToolCall } from "../runtime.js";
import { toolCallName, toolResultSnippet } from "./tool-call-name.js";

interface OpenCall {
  tool: string;
  args: unknown;
  startedAt: Date;
}

/**
 * Pairs a CLI's "tool started" and "tool finished" events by call id and reports each pair as one
 * `ToolCall` with real start and end times (and each start at once, through `onToolStart`). A call that never finishes is reported at `flush()` as
 * failed, so a killed agent's last tool still shows in the trace.
 */
export class ToolCallTracker {
  private readonly open = new Map<string, OpenCall>();
  private readonly observer: AgentSendObserver;

  constructor(observer: AgentSendObserver) {
    this.observer = observer;
  }

  /** Opens call `id` and reports its start (`onToolStart`, when the observer has it). */
  start(id: string, tool: string, args: unknown, at: Date = new Date()): void {
    if (this.open.has(id)) return;
    this.open.set(id, { tool, args, startedAt: at });
    try {
      this.observer.onToolStart?.({ tool, name: toolCallName(tool, args), args, startedAt: at });
    } catch {
      // The observer's failure is not the send's.
    }
  }

  /** Finishes call `id`; a finish without a start is reported with a zero duration. */
  end(
    id: string,
    result: unknown,
    ok: boolean,
    at: Date = new Date(),
    fallback?: { tool: string; args: unknown },
  ): void {
    const call = this.open.get(id) ?? (fallback ? { ...fallback, startedAt: at } : undefined);
    if (!call) return;
    this.open.delete(id);
    this.emit(call, result, ok, at);
  }

  /** Whether call `id` was started and has not finished. */
  has(id: string): boolean {
    return this.open.has(id);
  }

  /** Reports every unfinished call as failed (the agent ended or was killed mid-call). */
  flush(at: Date = new Date()): void {
    for (const call of this.open.values())
      this.emit(call, "(no result: the agent ended during this call)", false, at);
    this.open.clear();
  }

  private emit(call: OpenCall, result: unknown, ok: boolean, endedAt: Date): void {
    const toolCall: ToolCall = {
      tool: call.tool,
      name: toolCallName(call.tool, call.args),
      args: call.args,
      result: toolResultSnippet(typeof result === "string" ? result : JSON.stringify(result ?? "")),
      ok,
      startedAt: call.startedAt,
      endedAt: endedAt.getTime() < call.startedAt.getTime() ? call.startedAt : endedAt,
    };
    this.observer.onToolCall?.(toolCall);
  }
}
