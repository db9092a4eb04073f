/**
 * sssf session name ↔ opencode session id. opencode mints its own ids (`ses_…`) and has no
 * create-or-continue by name, so sssf creates a session on the first send, returns its id as
 * `nativeSessionId`, and also records it in `<sessionDir>/opencode-sessions.json` so a resume still
 * finds it when the caller lost the id. A resume for which neither record has an id means no earlier
 * send ever got as far as an opencode event (each died first): that one starts a new session, and says so.
 */

import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendRequest } from "../runtime.js";

/** Where sssf keeps the name → id map inside the agent's session folder. */
export const OPENCODE_SESSIONS_FILE = "opencode-sessions.json";

// opencode ids look like `ses_dd4531215ffejxKsi35cbP0j6L`; anything else is not one of its ids.
const NATIVE_ID = /^ses_[A-Za-z0-9]+$/;

function readMap(sessionDir: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(path.join(sessionDir, OPENCODE_SESSIONS_FILE), "utf8")) as unknown;
    if (typeof parsed !== "object" || parsed === null) return {};
    const map: Record<string, string> = {};
    for (const [name, id] of Object.entries(parsed)) if (typeof id === "string") map[name] = id;
    return map;
  } catch {
    return {};
  }
}

/** The opencode session to continue (null = create one) with a note to log, or why the send must not run. */
export type OpencodeSessionPlan =
  | { ok: true; session: string | null; note?: string }
  | { ok: false; error: string };

/** Decides create or continue for `request`. Never throws. */
export function planOpencodeSession(request: AgentSendRequest): OpencodeSessionPlan {
  if (!request.resume) return { ok: true, session: null };
  const recorded = readMap(request.sessionDir)[request.sessionId];
  const id = request.nativeSessionId ?? recorded;
  if (id === undefined || id === "") {
    const note = `session ${request.sessionId} has no opencode conversation yet (no earlier send got an opencode session id: nativeSessionId is empty and ${path.join(request.sessionDir, OPENCODE_SESSIONS_FILE)} has none); starting one`;
    return { ok: true, session: null, note };
  }
  if (!NATIVE_ID.test(id)) {
    return {
      ok: false,
      error: `cannot continue session ${request.sessionId}: "${id}" is not an opencode session id (ses_…)`,
    };
  }
  return { ok: true, session: id };
}

/** Records `nativeId` for `sessionId`. Returns an error message instead of throwing. */
export function recordOpencodeSession(
  sessionDir: string,
  sessionId: string,
  nativeId: string,
): string | null {
  const file = path.join(sessionDir, OPENCODE_SESSIONS_FILE);
  try {
    const map = readMap(sessionDir);
    if (map[sessionId] === nativeId) return null;
    map[sessionId] = nativeId;
    mkdirSync(sessionDir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(map, null, 2)}\n`);
    renameSync(temporary, file);
    return null;
  } catch (error) {
    return `could not record opencode session ${nativeId} in ${file}: ${(error as Error).message}`;
  }
}
