/**
 * gemini-cli session bookkeeping. gemini has no create-or-continue: `--session-id <uuid>` refuses an
 * existing id and `--resume <uuid>` refuses an unknown one (both exit 42). Worse, a first call that
 * fails before the model answers leaves a session file with no resumable turn, which both flags then
 * refuse forever. So sssf reads gemini's own session store (`<home>/.gemini/tmp/<project>/chats/`)
 * before each call and picks the flag from what is really there; a dead id moves on to the next
 * deterministic generation of the uuid.
 */

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";

/** What gemini's store holds for one session id in one project. */
export type GeminiSessionState = "absent" | "resumable" | "dead";

/** The gemini session uuid for sssf session `sessionId`, generation `generation` (0 first). */
export function geminiSessionUuid(sessionId: string, generation = 0): string {
  const hex = createHash("sha256").update(`sssf-gemini\0${sessionId}\0${generation}`).digest("hex");
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

type MessageRecord = Record<string, unknown> & { id: string };

/** One session file, read the way gemini reads it: metadata plus the surviving messages. */
export interface GeminiConversation {
  sessionId: string | undefined;
  projectHash: string | undefined;
  messages: MessageRecord[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isMessage = (value: unknown): value is MessageRecord => isRecord(value) && typeof value.id === "string";

/** Replays a JSONL session file (messages, `$set` updates, `$rewindTo`) or reads a legacy JSON one. */
export function parseGeminiConversation(text: string): GeminiConversation {
  const meta: Record<string, unknown> = {};
  const messages = new Map<string, MessageRecord>();
  const setAll = (list: unknown[]) => {
    messages.clear();
    for (const message of list) if (isMessage(message)) messages.set(message.id, message);
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(record)) continue;
    if (typeof record.$rewindTo === "string") {
      const ids = [...messages.keys()];
      const from = ids.indexOf(record.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) messages.delete(id);
    } else if (isMessage(record)) {
      messages.set(record.id, record);
    } else if (isRecord(record.$set)) {
      if (Array.isArray(record.$set.messages)) setAll(record.$set.messages);
      Object.assign(meta, record.$set);
    } else if (typeof record.sessionId === "string") {
      Object.assign(meta, record);
      if (Array.isArray(record.messages))
        for (const m of record.messages) if (isMessage(m)) messages.set(m.id, m);
    }
  }
  const str = (value: unknown) => (typeof value === "string" ? value : undefined);
  return {
    sessionId: str(meta.sessionId),
    projectHash: str(meta.projectHash),
    messages: [...messages.values()],
  };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    return isRecord(content) && typeof content.text === "string" ? content.text : "";
  return content
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "[part]"))
    .join("");
}

/** gemini's rule: a real user turn (not a slash command or injected context) or a non-empty model turn. */
export function isResumableMessage(message: MessageRecord): boolean {
  const text = contentText(message.content).trim();
  if (message.type === "user") {
    return !(text === "" || /^(\/|\?|<session_context>|<hook_context>)/.test(text));
  }
  if (message.type !== "gemini") return false;
  const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  return text !== "" || count(message.toolCalls) > 0 || count(message.thoughts) > 0;
}

/** sha256 of the project root, as gemini stamps it into each session file (raw and resolved cwd). */
function projectHashes(cwd: string): Set<string> {
  const roots = [path.resolve(cwd)];
  try {
    roots.push(realpathSync(cwd));
  } catch {
    // A missing cwd fails the spawn later with a clear error.
  }
  return new Set(roots.map((root) => createHash("sha256").update(root).digest("hex")));
}

/** The files of session `uuid` made in project `cwd`, parsed. Never throws. */
export function findGeminiConversations(geminiDir: string, cwd: string, uuid: string): GeminiConversation[] {
  const hashes = projectHashes(cwd);
  const suffixes = [`-${uuid.slice(0, 8)}.jsonl`, `-${uuid.slice(0, 8)}.json`];
  const found: GeminiConversation[] = [];
  let projects: string[];
  try {
    projects = readdirSync(path.join(geminiDir, "tmp"));
  } catch {
    return found;
  }
  for (const project of projects) {
    const chats = path.join(geminiDir, "tmp", project, "chats");
    let files: string[];
    try {
      files = readdirSync(chats).filter(
        (f) => f.startsWith("session-") && suffixes.some((s) => f.endsWith(s)),
      );
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        const conversation = parseGeminiConversation(readFileSync(path.join(chats, file), "utf8"));
        const hash = conversation.projectHash;
        if (conversation.sessionId === uuid && hash !== undefined && hashes.has(hash))
          found.push(conversation);
      } catch {
        // An unreadable file cannot be resumed either.
      }
    }
  }
  return found;
}

/** Whether gemini would accept `--resume uuid` (resumable), `--session-id uuid` (absent), or neither. */
export function geminiSessionState(geminiDir: string, cwd: string, uuid: string): GeminiSessionState {
  const files = findGeminiConversations(geminiDir, cwd, uuid);
  if (files.length === 0) return "absent";
  return files.some((file) => file.messages.some(isResumableMessage)) ? "resumable" : "dead";
}

/** Tokens in the context after the session's last model turn (its `tokens.total`), or null. */
export function geminiContextTokens(geminiDir: string, cwd: string, uuid: string): number | null {
  let best: number | null = null;
  for (const conversation of findGeminiConversations(geminiDir, cwd, uuid)) {
    for (const message of conversation.messages) {
      const total = isRecord(message.tokens) ? message.tokens.total : undefined;
      if (message.type === "gemini" && typeof total === "number") best = total;
    }
  }
  return best;
}

/** How many dead generations sssf skips before giving up on a session. */
export const MAX_GEMINI_GENERATIONS = 32;

/** The flag to pass for a send, and what sssf should say about it. */
export interface GeminiSessionPlan {
  uuid: string;
  resume: boolean;
  /** Set when the choice is not the obvious one (a dead id skipped, nothing to resume). */
  note?: string;
}

/**
 * Picks the gemini session for sssf session `sessionId`: the caller's `nativeSessionId` when gemini
 * can resume it, else the first generation of the derived uuid that is resumable (`--resume`) or
 * absent (`--session-id`). Null when every generation is dead. Never throws.
 */
export function planGeminiSession(options: {
  geminiDir: string;
  cwd: string;
  sessionId: string;
  resume: boolean;
  nativeSessionId?: string | undefined;
}): GeminiSessionPlan | null {
  const { geminiDir, cwd, sessionId } = options;
  const native = options.nativeSessionId;
  if (native && geminiSessionState(geminiDir, cwd, native) === "resumable")
    return { uuid: native, resume: true };
  for (let generation = 0; generation < MAX_GEMINI_GENERATIONS; generation++) {
    const uuid = geminiSessionUuid(sessionId, generation);
    const state = geminiSessionState(geminiDir, cwd, uuid);
    if (state === "dead") continue;
    if (state === "resumable") return { uuid, resume: true };
    const skipped =
      generation === 0 ? "" : ` (${generation} earlier gemini session id(s) hold no turn to resume)`;
    const note = options.resume
      ? `gemini holds no resumable turn of session ${sessionId} for ${cwd} (an earlier send failed before the model answered, or the session file was removed); starting gemini session ${uuid}${skipped}`
      : skipped === ""
        ? undefined
        : `starting gemini session ${uuid}${skipped}`;
    return note === undefined ? { uuid, resume: false } : { uuid, resume: false, note };
  }
  return null;
}
