/**
 * Context occupancy of a codex thread, read from its rollout file
 * (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`): the last `token_count` event's
 * `last_token_usage.total_tokens` is what the last model request put in the context window. The
 * `--json` stream does not carry it.
 */

import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import path from "node:path";

/** Bytes read from the end of a rollout: token_count events follow every model response. */
const TAIL_BYTES = 256 * 1024;

const descending = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
};

/** The rollout file of `threadId` under `<codexHome>/sessions`, newest day first, or null. Never throws. */
export function findRollout(codexHome: string, threadId: string): string | null {
  const sessions = path.join(codexHome, "sessions");
  const suffix = `-${threadId}.jsonl`;
  for (const year of descending(sessions)) {
    for (const month of descending(path.join(sessions, year))) {
      for (const day of descending(path.join(sessions, year, month))) {
        const dir = path.join(sessions, year, month, day);
        const file = descending(dir).find((name) => name.endsWith(suffix));
        if (file !== undefined) return path.join(dir, file);
      }
    }
  }
  return null;
}

function readTail(file: string): string {
  const size = statSync(file).size;
  const length = Math.min(size, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  return buffer.toString("utf8");
}

/** Tokens in the thread's context after its last model request, or null when unknown. Never throws. */
export function rolloutContextTokens(codexHome: string, threadId: string): number | null {
  try {
    const file = findRollout(codexHome, threadId);
    if (file === null) return null;
    const lines = readTail(file).split("\n").reverse();
    for (const line of lines) {
      if (!line.includes('"token_count"')) continue;
      try {
        const event = JSON.parse(line) as {
          payload?: { type?: string; info?: { last_token_usage?: { total_tokens?: unknown } } | null };
        };
        const total = event.payload?.info?.last_token_usage?.total_tokens;
        if (event.payload?.type === "token_count" && typeof total === "number") return total;
      } catch {
        // The first line of the tail may be cut in half.
      }
    }
    return null;
  } catch {
    return null;
  }
}
