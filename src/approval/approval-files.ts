import { randomBytes } from "node:crypto";
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { z } from "zod";
import { redactJsonValue } from "../util/secrets/redact-json.js";

/**
 * The files of an engineer's approval, in `<session>/approvals/`: `<phase_id>.request.json` while a
 * phase waits, `<phase_id>.answer.json` once `sssf approve`/`reject` answered. Both are written whole
 * (temp file, then rename or link) so a reader never sees half a file.
 */
function requestSchema() {
  return z.object({
    adw_id: z.string(),
    phase_id: z.string(),
    phase: z.string(),
    phase_number: z.number().int(),
    question: z.string(),
    details: z.record(z.string(), z.unknown()),
    asked_at: z.string(),
    /** The waiting sssf process, so an answer to a dead run can be told apart. */
    pid: z.number().int(),
    host: z.string(),
  });
}
export type ApprovalRequest = z.output<ReturnType<typeof requestSchema>>;

/** What `sssf approve`/`reject` answers: the `EngineerAnswer` the waiting phase returns. */
function answerSchema() {
  return z.object({
    approved: z.boolean(),
    reason: z.string(),
    by: z.string().min(1),
    at: z.string(),
  });
}
export type ApprovalAnswer = z.output<ReturnType<typeof answerSchema>>;

// Built when a file is first read: a run that asks nothing never builds them.
let schemas:
  | { request: ReturnType<typeof requestSchema>; answer: ReturnType<typeof answerSchema> }
  | undefined;
const approvalSchemas = () => {
  schemas ??= { request: requestSchema(), answer: answerSchema() };
  return schemas;
};

const REQUEST_SUFFIX = ".request.json";
const ANSWER_SUFFIX = ".answer.json";

/** `<session>/approvals`. */
export function approvalsDir(sessionRoot: string): string {
  return path.join(sessionRoot, "approvals");
}

/** `<dir>/<phase_id>.request.json`: present while the phase waits. */
export function requestFile(dir: string, phaseId: string): string {
  return path.join(dir, `${phaseId}${REQUEST_SUFFIX}`);
}

/** `<dir>/<phase_id>.answer.json`: the answer, until the waiting run takes it. */
export function answerFile(dir: string, phaseId: string): string {
  return path.join(dir, `${phaseId}${ANSWER_SUFFIX}`);
}

function tempNameFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
}

/** `value` as the JSON text of an approval file, secrets redacted (`redactJsonValue`). */
function fileText(value: ApprovalRequest | ApprovalAnswer): string {
  return `${JSON.stringify(redactJsonValue(value), null, 2)}\n`;
}

/** Writes `value` (secrets redacted) as JSON to `file` atomically (temp file + rename), creating the folder. */
export function writeRequest(file: string, value: ApprovalRequest): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = tempNameFor(file);
  writeFileSync(temp, fileText(value));
  renameSync(temp, file);
}

/**
 * Writes the answer (secrets redacted) atomically and exclusively (temp file + hard link, which refuses
 * an existing target). Returns false, writing nothing, when the request already has an answer.
 */
export function writeAnswerOnce(file: string, value: ApprovalAnswer): boolean {
  const temp = tempNameFor(file);
  writeFileSync(temp, fileText(value));
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    removeQuietly(temp);
  }
}

/**
 * Reads and validates an answer file. Throws with the file's name and what is wrong when it is not
 * an answer (only a hand-written file can be: the commands write whole, valid answers).
 */
export function readAnswer(file: string): ApprovalAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  const checked = approvalSchemas().answer.safeParse(parsed);
  if (!checked.success) {
    const problems = checked.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`${file} is not an approval answer: ${problems.join("; ")}`);
  }
  return checked.data;
}

/**
 * The valid requests waiting in `dir`, oldest first. Never throws: a missing folder has none, and a
 * file that does not parse as a request is skipped.
 */
export function pendingRequests(dir: string): ApprovalRequest[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const requests: ApprovalRequest[] = [];
  for (const name of names) {
    if (!name.endsWith(REQUEST_SUFFIX)) continue;
    try {
      const checked = approvalSchemas().request.safeParse(
        JSON.parse(readFileSync(path.join(dir, name), "utf8")),
      );
      if (checked.success) requests.push(checked.data);
    } catch {
      // Removed between the listing and the read: it is no longer waiting.
    }
  }
  return requests.sort((a, b) => a.asked_at.localeCompare(b.asked_at));
}

/** Removes a file if it is there. Never throws. */
export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone, or never written.
  }
}
