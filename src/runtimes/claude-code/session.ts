/**
 * Create-or-continue for claude, which has neither: `--session-id X` fails once X exists and
 * `--resume X` fails until it does. The conversation's UUID is derived from sssf's session name, and
 * the flag is chosen by whether claude's transcript file exists. A small record in the agent's
 * session folder remembers where the transcript was, so a transcript that vanished (HOME or cwd
 * changed, file deleted) is an error instead of a silent fresh start.
 */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { AgentSendRequest } from "../runtime.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A name-based (version 5 layout) UUID for sssf session `sessionId`: the same name, the same UUID. */
export function claudeSessionUuid(sessionId: string): string {
  const hash = createHash("sha1").update(`sssf/claude_code/${sessionId}`).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** claude's folder name for a project dir: non-alphanumerics become `-`; long names are cut and hashed. */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (slug.length <= 200) return slug;
  let hash = 0;
  for (let index = 0; index < cwd.length; index++) hash = ((hash << 5) - hash + cwd.charCodeAt(index)) | 0;
  return `${slug.slice(0, 200)}-${Math.abs(hash).toString(36)}`;
}

/** claude's config dir: `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`. */
export function claudeConfigDir(env: Record<string, string | undefined>): string {
  const configured = env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && configured !== "") return configured;
  return path.join(env.HOME || homedir(), ".claude");
}

/** The directory claude sees as its cwd (the physical path, as `getcwd` reports it). */
function physical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Where claude keeps the transcript of conversation `uuid` started in `cwd`. */
export function claudeTranscriptPath(configDir: string, cwd: string, uuid: string): string {
  return path.join(configDir, "projects", claudeProjectSlug(physical(cwd)), `${uuid}.jsonl`);
}

/** What the agent's session folder remembers about a conversation after a send that created it. */
interface SessionRecord {
  session_id: string;
  native_session_id: string;
  cwd: string;
  transcript: string;
}

const recordPath = (sessionDir: string, uuid: string) => path.join(sessionDir, "claude-code", `${uuid}.json`);

function readRecord(file: string): SessionRecord | null {
  try {
    const record = JSON.parse(readFileSync(file, "utf8")) as Partial<SessionRecord>;
    return typeof record.transcript === "string" && typeof record.cwd === "string"
      ? (record as SessionRecord)
      : null;
  } catch {
    return null;
  }
}

/** How one send joins its conversation. */
export type ClaudeSessionPlan =
  | { ok: true; uuid: string; resume: boolean; transcript: string; notes: string[] }
  | { ok: false; error: string };

/**
 * Picks the UUID (the returned `nativeSessionId`, else derived from `sessionId`) and `--resume` or
 * `--session-id`. Fails only when an earlier send created the transcript and it is gone now. Never
 * throws.
 */
export function planClaudeSession(request: AgentSendRequest): ClaudeSessionPlan {
  const env = { ...process.env, ...request.env };
  const native = request.nativeSessionId;
  const uuid =
    native !== undefined && UUID.test(native) ? native.toLowerCase() : claudeSessionUuid(request.sessionId);
  const transcript = claudeTranscriptPath(claudeConfigDir(env), request.cwd, uuid);
  if (existsSync(transcript)) {
    const notes = request.resume
      ? []
      : [`claude transcript ${transcript} already exists (left by an earlier attempt); continuing it`];
    return { ok: true, uuid, resume: true, transcript, notes };
  }
  if (!request.resume) return { ok: true, uuid, resume: false, transcript, notes: [] };
  const record = readRecord(recordPath(request.sessionDir, uuid));
  if (record === null) {
    const note = `no earlier send of session ${request.sessionId} reached claude (no transcript ${transcript}); starting the conversation fresh`;
    return { ok: true, uuid, resume: false, transcript, notes: [note] };
  }
  const moved =
    record.cwd !== physical(request.cwd)
      ? ` It was started in ${record.cwd} and this call runs in ${physical(request.cwd)}; claude only resumes from the same directory.`
      : " HOME or CLAUDE_CONFIG_DIR may have changed, or the file was deleted.";
  return {
    ok: false,
    error: `claude session ${uuid} (sssf session ${request.sessionId}) cannot be resumed: its transcript ${record.transcript} is missing.${moved} Refusing to start a fresh conversation in its place.`,
  };
}

/** Remembers the transcript once it exists, for `planClaudeSession`. Never throws. */
export function recordClaudeSession(request: AgentSendRequest, uuid: string, transcript: string): void {
  if (!existsSync(transcript)) return;
  const file = recordPath(request.sessionDir, uuid);
  const record: SessionRecord = {
    session_id: request.sessionId,
    native_session_id: uuid,
    cwd: physical(request.cwd),
    transcript,
  };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  } catch {
    // Without the record a vanished transcript is reported as a fresh start in the trace, not an error.
  }
}
