/**
 * A recorded send's tool calls, told again in the replay: each is reported to the send's observer
 * (so the trace and the send hooks see it), and each file it named inside the run's root or its
 * `context_handoff/` is written into the replay's scratch folder: the content the call's arguments
 * hold, else a line saying what wrote it. Gates that read the phase's changes then see the same paths
 * changed as in the record. Nothing outside the replay's folders is written; nothing is executed.
 */

import { appendFileSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { resolveToolPath, toolCallPaths } from "../boundary/write-boundary-paths.js";
import type { AgentSendObserver } from "../runtimes/runtime.js";
import { hostPathsIn } from "../sandbox/box-paths.js";
import type { EventRow } from "../trace/events.js";

/** One tool call of a recorded send, as the trace keeps it. */
export interface RecordedToolCall {
  tool: string;
  name: string;
  args: unknown;
  ok: boolean;
}

/** The tool calls of each recorded send of a phase, by the send's attempt number. */
export function toolCallsByAttempt(
  phaseId: string,
  events: readonly EventRow[],
): Map<number, RecordedToolCall[]> {
  const spans = new Map<string, number>();
  for (const event of events) {
    if (event.type !== "agent_start" || event.phase_id !== phaseId) continue;
    const attempt = (parse(event.payload) as { attempt?: unknown }).attempt;
    if (typeof attempt === "number") spans.set(event.id, attempt);
  }
  const calls = new Map<number, RecordedToolCall[]>();
  for (const event of events) {
    if (event.type !== "tool_call" || event.parent_id === null) continue;
    const attempt = spans.get(event.parent_id);
    if (attempt === undefined) continue;
    const payload = parse(event.payload) as { tool?: unknown; args?: unknown };
    const list = calls.get(attempt) ?? [];
    list.push({
      tool: typeof payload.tool === "string" ? payload.tool : event.name,
      name: event.name,
      args: payload.args ?? null,
      ok: event.ok !== 0,
    });
    calls.set(attempt, list);
  }
  return calls;
}

function parse(json: string): object {
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** Where the record ran and where the replay runs: absolute paths are moved from one to the other. */
export interface EffectRoots {
  /** The record's run root(s): its worktree and the folder it worked in. */
  from: string[];
  /** The record's `context_handoff/`. */
  fromHandoff: string;
  root: string;
  handoff: string | undefined;
}

/** `value` with every string that starts with one of the record's folders moved to the replay's. */
function moved(value: unknown, roots: EffectRoots, depth = 0): unknown {
  if (typeof value === "string") {
    if (roots.handoff !== undefined && value.startsWith(`${roots.fromHandoff}/`))
      return path.join(roots.handoff, value.slice(roots.fromHandoff.length + 1));
    const from = roots.from.find((dir) => value === dir || value.startsWith(`${dir}/`));
    return from === undefined ? value : path.join(roots.root, value.slice(from.length));
  }
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => moved(item, roots, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, moved(item, roots, depth + 1)]));
}

/** Tools that write the files they name (every runtime's spelling); reading ones name files too. */
const WRITES = /write|edit|create|patch|replace|insert|append|touch/i;
const READS = /read|view|list|glob|grep|search|find/i;

const within = (file: string, dir: string | undefined): boolean =>
  dir !== undefined && file.startsWith(`${path.resolve(dir)}${path.sep}`);

/** Tells the observer each recorded call and writes the files it named into the replay's folders. */
export function replayToolCalls(
  calls: readonly RecordedToolCall[],
  roots: EffectRoots,
  agent: string,
  observer: AgentSendObserver,
): void {
  for (const call of calls) {
    const args = moved(hostPathsIn(call.args, roots.root, roots.handoff ?? roots.root), roots);
    const now = new Date();
    observer.onToolCall?.({
      tool: call.tool,
      name: call.name,
      args,
      result: "",
      ok: call.ok,
      startedAt: now,
      endedAt: now,
    });
    if (!call.ok || !WRITES.test(call.tool) || READS.test(call.tool)) continue;
    const content = (args as { content?: unknown } | null)?.content;
    for (const raw of toolCallPaths(args)) {
      const file = path.resolve(resolveToolPath(raw, roots.root));
      if (!within(file, roots.root) && !within(file, roots.handoff)) continue;
      if (existsSync(file) && statSync(file).isDirectory()) continue;
      mkdirSync(path.dirname(file), { recursive: true });
      if (typeof content === "string") writeFileSync(file, content);
      else if (existsSync(file)) appendFileSync(file, `\n(replayed: ${call.tool} by ${agent})\n`);
      else writeFileSync(file, `(replayed: ${call.tool} by ${agent})\n`);
    }
  }
}
