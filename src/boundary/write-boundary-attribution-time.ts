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
import { realPathOf, resolveToolPath, toolCallPaths } from "./write-boundary-paths.js";

/** A tool call's window is widened by this much on each side (events are stamped as they arrive). */
export const WINDOW_SLACK_MS = 1000;

/** What one send's tool calls named (real absolute paths) and when they ran (ms since the epoch). */
export interface ToolActivity {
  named: ReadonlySet<string>;
  windows: readonly (readonly [number, number])[];
}

/** The activity of `calls`, their relative paths resolved against `realRoot`. Never throws. */
export function toolActivity(calls: readonly ToolCall[], realRoot: string): ToolActivity {
  const named = new Set<string>();
  const windows: [number, number][] = [];
  for (const call of calls) {
    for (const raw of toolCallPaths(call.args)) named.add(realPathOf(resolveToolPath(raw, realRoot)));
    const start = call.startedAt.getTime();
    const ended = call.endedAt.getTime();
    const end = Number.isFinite(ended) ? Math.max(start, ended) : start;
    if (Number.isFinite(start)) windows.push([start - WINDOW_SLACK_MS, end + WINDOW_SLACK_MS]);
  }
  return { named, windows };
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
