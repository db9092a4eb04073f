import { hostname, userInfo } from "node:os";
import { processAlive } from "../util/process-group.js";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  answerFile,
  pendingRequests,
  removeQuietly,
  requestFile,
  writeAnswerOnce,
} from "./approval-files.js";

/** Who answers: `user@host`, as the trace shows it. Never throws. */
export function answeredBy(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the environment is the next best witness.
    user = process.env.USER ?? process.env.USERNAME ?? `uid${process.getuid?.() ?? "?"}`;
  }
  return `${user}@${hostname()}`;
}

/**
 * The requests waiting in `dir` (`<session>/approvals`), oldest first, split into those whose run is
 * alive and those whose run is gone (killed on this host without finalizing): the gone ones' request
 * files are removed, never answered. Never throws.
 */
export function liveRequests(dir: string): { live: ApprovalRequest[]; gone: ApprovalRequest[] } {
  const live: ApprovalRequest[] = [];
  const gone: ApprovalRequest[] = [];
  for (const request of pendingRequests(dir)) {
    if (request.host === hostname() && !processAlive(request.pid)) {
      removeQuietly(requestFile(dir, request.phase_id));
      gone.push(request);
    } else live.push(request);
  }
  return { live, gone };
}

/**
 * Answers `request` the way `sssf approve`/`reject` do: the answer file the waiting run picks up,
 * written whole and only once (secrets redacted). Returns the answer, or null when the request was
 * already answered. Throws what the file system throws.
 */
export function answerRequest(
  dir: string,
  request: ApprovalRequest,
  decision: { approved: boolean; reason: string; by: string },
): ApprovalAnswer | null {
  const answer: ApprovalAnswer = { ...decision, at: new Date().toISOString() };
  return writeAnswerOnce(answerFile(dir, request.phase_id), answer) ? answer : null;
}
