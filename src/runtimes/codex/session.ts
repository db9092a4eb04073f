/**
 * The codex runtime's own state in the agent's session folder (`codex-threads.json`): which codex
 * thread each sssf session id continues, and each thread's cumulative token counters as of the last
 * completed turn (codex reports cumulative counts; a send's own numbers are the difference).
 */

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/** `turn.completed.usage` of `codex exec --json`: cumulative over the whole thread. */
export interface CodexCumulativeUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

interface ThreadState {
  /** sssf session id → codex thread id. */
  sessions: Record<string, string>;
  /** codex thread id → cumulative usage after its last completed turn. */
  usage: Record<string, CodexCumulativeUsage>;
}

const STATE_FILE = "codex-threads.json";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` is a UUID: the only kind of id sssf ever resumes by (a name could start a new thread). */
export const isThreadId = (id: string): boolean => UUID.test(id);

function readState(sessionDir: string): ThreadState {
  try {
    const parsed = JSON.parse(
      readFileSync(path.join(sessionDir, STATE_FILE), "utf8"),
    ) as Partial<ThreadState>;
    return { sessions: parsed.sessions ?? {}, usage: parsed.usage ?? {} };
  } catch {
    return { sessions: {}, usage: {} };
  }
}

function update(sessionDir: string, change: (state: ThreadState) => void): void {
  const state = readState(sessionDir);
  change(state);
  const file = path.join(sessionDir, STATE_FILE);
  mkdirSync(sessionDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, file);
}

/** The thread recorded for `sessionId`, if any. Never throws. */
export function recordedThread(sessionDir: string, sessionId: string): string | undefined {
  return readState(sessionDir).sessions[sessionId];
}

/** The thread's cumulative usage after its last completed turn sssf saw, if any. Never throws. */
export function recordedUsage(sessionDir: string, threadId: string): CodexCumulativeUsage | undefined {
  return readState(sessionDir).usage[threadId];
}

/** Remembers that `sessionId` continues `threadId`. Throws when the folder is not writable. */
export function recordThread(sessionDir: string, sessionId: string, threadId: string): void {
  update(sessionDir, (state) => {
    state.sessions[sessionId] = threadId;
  });
}

/** Remembers a thread's cumulative usage. Throws when the folder is not writable. */
export function recordUsage(sessionDir: string, threadId: string, usage: CodexCumulativeUsage): void {
  update(sessionDir, (state) => {
    state.usage[threadId] = usage;
  });
}
