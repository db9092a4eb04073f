/**
 * The scripted agent's persistent bookkeeping: an exclusive lock per script, which turns are consumed,
 * the per-session transcript files and the cross-session sends log.
 */

import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { ExecRequest } from "../runtimes/exec/protocol.js";
import {
  type Script,
  type ScriptedSend,
  scriptLockPath,
  scriptSendsPath,
  scriptStatePath,
} from "./scripted-turn.js";

const LOCK_WAIT_MS = 10_000;
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `work` while holding the script's lock (a folder: mkdir is atomic). Throws after 10 s of waiting. */
export function withScriptLock<T>(scriptPath: string, work: () => T): T {
  const lock = scriptLockPath(scriptPath);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock older than the wait limit belongs to an agent that was killed while holding it.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_WAIT_MS) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      else sleepSync(5);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function readConsumed(scriptPath: string): Set<number> {
  try {
    const state = JSON.parse(readFileSync(scriptStatePath(scriptPath), "utf8")) as { consumed?: number[] };
    return new Set(state.consumed ?? []);
  } catch {
    return new Set();
  }
}

/**
 * Picks the first unconsumed turn whose `match` is absent or in `prompt` (and whose `match_model`, if
 * any, is `model`), marks it consumed unless it
 * repeats, and persists the state atomically. Returns its index, or null when the script is exhausted.
 * Call under `withScriptLock`.
 */
export function claimTurn(
  scriptPath: string,
  script: Script,
  prompt: string,
  model = "",
  cwd = "",
): number | null {
  const consumed = readConsumed(scriptPath);
  const index = script.turns.findIndex(
    (turn, i) =>
      !consumed.has(i) &&
      (turn.match === undefined || prompt.includes(turn.match)) &&
      (turn.match_model === undefined || turn.match_model === model) &&
      (turn.match_cwd === undefined || cwd.endsWith(turn.match_cwd)),
  );
  if (index === -1) return null;
  if (script.turns[index]?.repeat !== true) {
    consumed.add(index);
    const statePath = scriptStatePath(scriptPath);
    const temporary = `${statePath}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ consumed: [...consumed].sort((a, b) => a - b) }));
    renameSync(temporary, statePath);
  }
  return index;
}

/** `<session_dir>/<session_id>.jsonl`, the session's transcript. */
export function sessionFilePath(request: ExecRequest): string {
  return join(request.session_dir, `${request.session_id}.jsonl`);
}

/** True when the request's session was created by an earlier send. */
export function sessionExists(request: ExecRequest): boolean {
  return existsSync(sessionFilePath(request));
}

/** Appends one send to the session transcript (when played) and to the script's sends log. */
export function recordSend(scriptPath: string, request: ExecRequest, turn: number | null): void {
  if (turn !== null) {
    mkdirSync(request.session_dir, { recursive: true });
    appendFileSync(sessionFilePath(request), `${JSON.stringify({ request, turn })}\n`);
  }
  const send: ScriptedSend = {
    session_id: request.session_id,
    resume: request.resume,
    prompt: request.prompt,
    system_prompt: request.system_prompt,
    turn,
  };
  appendFileSync(scriptSendsPath(scriptPath), `${JSON.stringify(send)}\n`);
}
