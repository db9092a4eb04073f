/**
 * sssf's named session → one pi session file, `<sessionDir>/<sessionId>.jsonl`, which `pi --session
 * <file>` creates or continues. Before each send the file is checked so pi never does what it would
 * do silently: start over on a damaged file (pi truncates it), continue a conversation sssf thinks is
 * new, or run tools in the directory stored in the session header instead of the run's working tree.
 */

import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { AgentSendRequest } from "../runtime.js";

/** What to run the send with, or why it must not run. */
export type PiSessionPlan = { ok: true; file: string; notes: string[] } | { ok: false; error: string };

interface SessionHeader {
  type: "session";
  id: string;
  cwd?: string;
  [key: string]: unknown;
}

/** A file name for `sessionId` (other characters than letters, digits, `.`, `_`, `-` become `_`). */
export function piSessionFile(sessionDir: string, sessionId: string): string {
  return path.join(sessionDir, `${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`);
}

/** The first line of `file` (at most 64 KB are read). */
function firstLine(file: string): string {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString("utf8", 0, read);
    const end = text.indexOf("\n");
    return end < 0 ? text : text.slice(0, end);
  } finally {
    closeSync(fd);
  }
}

function parseHeader(line: string): SessionHeader | null {
  try {
    const value = JSON.parse(line) as Partial<SessionHeader> | null;
    return value?.type === "session" && typeof value.id === "string" ? (value as SessionHeader) : null;
  } catch {
    return null;
  }
}

/** Points the session at `cwd` (pi runs tools in the header's cwd), replacing the file atomically. */
function rewriteHeaderCwd(file: string, header: SessionHeader, cwd: string): void {
  const text = readFileSync(file, "utf8");
  const rest = text.slice(text.indexOf("\n"));
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ ...header, cwd })}${rest}`);
  renameSync(temporary, file);
}

const realDir = (dir: string): string => {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
};

/**
 * Makes `request`'s session file safe to hand to pi. Never throws: file-system failures come back as
 * `{ ok: false }`. `notes` say what was repaired, for the trace.
 */
export function planPiSession(request: AgentSendRequest): PiSessionPlan {
  const file = piSessionFile(request.sessionDir, request.sessionId);
  const notes: string[] = [];
  try {
    mkdirSync(request.sessionDir, { recursive: true });
    let line: string | null;
    try {
      line = firstLine(file);
    } catch {
      line = null; // No file yet.
    }
    if (line === null) {
      if (request.resume) {
        notes.push(
          `pi session file ${file} does not exist although sssf sent to session ${request.sessionId} before: ` +
            "the earlier send ended before pi saved a reply, so pi starts the conversation now",
        );
      }
      return { ok: true, file, notes };
    }
    const header = parseHeader(line);
    if (header === null) {
      return {
        ok: false,
        error:
          `pi session file ${file} has no valid session header, so pi would silently start over and ` +
          "overwrite it; refusing to send. Move the file away to start this agent's conversation afresh.",
      };
    }
    if (!request.resume) {
      const aside = `${file}.replaced-${Date.now()}`;
      renameSync(file, aside);
      notes.push(`session ${request.sessionId} is new to sssf but ${file} existed; moved it to ${aside}`);
      return { ok: true, file, notes };
    }
    if (request.nativeSessionId !== undefined && request.nativeSessionId !== header.id) {
      notes.push(
        `pi session file ${file} holds pi session ${header.id}, not ${request.nativeSessionId} as last reported`,
      );
    }
    const cwd = realDir(request.cwd);
    if (header.cwd !== cwd) {
      rewriteHeaderCwd(file, header, cwd);
      notes.push(
        `pi session ${header.id} was recorded in ${header.cwd ?? "(no cwd)"}; continuing it in ${cwd}`,
      );
    }
    return { ok: true, file, notes };
  } catch (error) {
    return { ok: false, error: `could not prepare pi session file ${file}: ${(error as Error).message}` };
  }
}
