/**
 * Whose change is it, in a folder other writers share (the operator's checkout, its `node_modules`)?
 * The operator keeps working there while a worktree run's agent sends, and other runs merge into it.
 * A change there is the agent's when a tool call of the send named the path, or when it happened while
 * one of the send's tool calls was running (its status change time inside the call's window); anything
 * else is someone else's, and left alone.
 */

import fs from "node:fs";
import path from "node:path";
import type { ToolCall } from "../runtimes/runtime.js";

/** A tool call's window is widened by this much on each side (events are stamped as they arrive). */
export const WINDOW_SLACK_MS = 1000;

/** What one send's tool calls named (real absolute paths) and when they ran (ms since the epoch). */
export interface ToolActivity {
  named: ReadonlySet<string>;
  windows: readonly (readonly [number, number])[];
}

/**
 * A send's activity, recorded call by call as the calls stream, so nothing needs the calls themselves
 * afterwards (a flood of 200,000 tool calls is not held until the settle). A window overlapping the
 * one before it extends that one: calls in quick succession keep one window, not one each.
 */
export class ActivityRecorder implements ToolActivity {
  readonly named = new Set<string>();
  readonly windows: [number, number][] = [];

  /** Records `real` (a real absolute path) as named by a tool call. */
  name(real: string): void {
    this.named.add(real);
  }

  /** Records when `call` ran, widened by `WINDOW_SLACK_MS` on each side. */
  ran(call: ToolCall): void {
    const start = call.startedAt.getTime();
    if (!Number.isFinite(start)) return;
    const ended = call.endedAt.getTime();
    const from = start - WINDOW_SLACK_MS;
    const to = (Number.isFinite(ended) ? Math.max(start, ended) : start) + WINDOW_SLACK_MS;
    const last = this.windows[this.windows.length - 1];
    if (last !== undefined && from <= last[1] && to >= last[0]) {
      last[0] = Math.min(last[0], from);
      last[1] = Math.max(last[1], to);
    } else this.windows.push([from, to]);
  }
}

/**
 * True when the change at `absolute` may be the agent's: a tool call named it, or it (or, once gone,
 * the nearest folder still there, whose entries changed when it went) changed status during a tool
 * call. Never throws.
 */
export function byTheAgent(activity: ToolActivity, absolute: string): boolean {
  if (activity.named.has(absolute)) return true;
  let probe = absolute;
  for (;;) {
    const stat = fs.lstatSync(probe, { throwIfNoEntry: false });
    if (stat) {
      const changed = Math.max(stat.ctimeMs, stat.mtimeMs);
      return activity.windows.some(([from, to]) => changed >= from && changed <= to);
    }
    const parent = path.dirname(probe);
    if (parent === probe) return true;
    probe = parent;
  }
}
