import type { SessionRow } from "../../../trace/events.js";
import type { LandResult } from "../../../workspace/land-run.js";
import type { MergeLook } from "../../../workspace/merge-look.js";
import type {
  ApprovalAnswered,
  ApprovalsView,
  FileText,
  PhaseDetail,
  RunChanges,
  RunView,
  SearchResult,
  SessionsPage,
  ToolCallsPage,
  UsageReport,
} from "../../server/api-types.js";
import type { BaseDrift, FinalEnvelope, PhaseChanges, RunOutcome } from "../../server/review/review-types.js";

/** A failed API call: the server's error text and the HTTP status. */
export class ApiError extends Error {
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

async function request<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { credentials: "same-origin", ...init });
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(body.error ?? `HTTP ${response.status}`, response.status);
  return body as T;
}

/** Filters of the sessions list, as the API takes them. */
export interface SessionFilters {
  q: string;
  status: string;
  workflow: string;
  archived: boolean;
  offset: number;
}

/** Sessions per page. */
export const SESSIONS_PAGE = 50;

/** `GET api/sessions` with the filters. */
export function fetchSessions(filters: SessionFilters): Promise<SessionsPage> {
  const params = new URLSearchParams({ limit: String(SESSIONS_PAGE), offset: String(filters.offset) });
  if (filters.q.trim()) params.set("q", filters.q.trim());
  if (filters.status) params.set("status", filters.status);
  if (filters.workflow) params.set("workflow", filters.workflow);
  if (filters.archived) params.set("archived", "1");
  return request(`api/sessions?${params}`);
}

const id = encodeURIComponent;

/** `GET api/sessions/:adw_id`. */
export function fetchRun(adwId: string): Promise<RunView> {
  return request(`api/sessions/${id(adwId)}`);
}

/** `GET api/sessions/:adw_id/phases/:phase_id`. */
export function fetchPhase(adwId: string, phaseId: string): Promise<PhaseDetail> {
  return request(`api/sessions/${id(adwId)}/phases/${id(phaseId)}`);
}

/** `GET …/tool-calls?offset=&limit=`: an earlier page of tool calls. */
export function fetchToolCalls(
  adwId: string,
  phaseId: string,
  offset: number,
  limit: number,
): Promise<ToolCallsPage> {
  return request(
    `api/sessions/${id(adwId)}/phases/${id(phaseId)}/tool-calls?offset=${offset}&limit=${limit}`,
  );
}

/** `POST api/sessions/:adw_id/archive` (JSON, same origin). */
export function postArchive(adwId: string, archived: boolean): Promise<{ session: SessionRow }> {
  return request(`api/sessions/${id(adwId)}/archive`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ archived }),
  });
}

/** `GET …/prompts`: the prompts the phase sent so far (re-read after a new send). */
export function fetchPrompts(
  adwId: string,
  phaseId: string,
): Promise<Pick<PhaseDetail, "prompts" | "system_prompts">> {
  return request(`api/sessions/${id(adwId)}/phases/${id(phaseId)}/prompts`);
}

/** `GET …/changes`: the run's commits and saved diffs. */
export function fetchChanges(adwId: string): Promise<RunChanges> {
  return request(`api/sessions/${id(adwId)}/changes`);
}

/** `GET …/diff`: the run's total diff, `git diff base_ref...branch`. */
export function fetchTotalDiff(adwId: string): Promise<FileText> {
  return request(`api/sessions/${id(adwId)}/diff`);
}

/** `GET …/commits/:sha`: one commit of the run, `git show`. */
export function fetchCommitDiff(adwId: string, sha: string): Promise<FileText> {
  return request(`api/sessions/${id(adwId)}/commits/${id(sha)}`);
}

/** `GET …/phases/:phase_id/diff`: the diff a code phase saved. */
export function fetchPhaseDiff(adwId: string, phaseId: string): Promise<FileText> {
  return request(`api/sessions/${id(adwId)}/phases/${id(phaseId)}/diff`);
}

/** `GET …/phases/:phase_id/suite-log?envelope=`: a suite's full output log. */
export function fetchSuiteLog(adwId: string, phaseId: string, envelopeId: string): Promise<FileText> {
  return request(`api/sessions/${id(adwId)}/phases/${id(phaseId)}/suite-log?envelope=${id(envelopeId)}`);
}

/** `GET …/phases/:phase_id/attempts/:attempt/diff`: the diff a best-of attempt saved in the session folder. */
export function fetchAttemptDiff(adwId: string, phaseId: string, attempt: number): Promise<FileText> {
  return request(`api/sessions/${id(adwId)}/phases/${id(phaseId)}/attempts/${attempt}/diff`);
}

/** `GET …/search?q=`: the run's events whose name or payload contains `q`. */
export function searchRun(adwId: string, q: string): Promise<SearchResult> {
  return request(`api/sessions/${id(adwId)}/search?q=${id(q)}`);
}

/** `GET api/usage`: spend per day, workflow, agent and model. */
export function fetchUsage(): Promise<UsageReport> {
  return request("api/usage");
}

/** `GET …/approvals`: the phases of the run waiting for the engineer. */
export function fetchApprovals(adwId: string): Promise<ApprovalsView> {
  return request(`api/sessions/${id(adwId)}/approvals`);
}

/** `POST …/approvals/:phase_id` (JSON, same origin): approve, or reject with a reason. */
export function postApproval(
  adwId: string,
  phaseId: string,
  approved: boolean,
  reason: string,
): Promise<ApprovalAnswered> {
  return request(`api/sessions/${id(adwId)}/approvals/${id(phaseId)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ approved, reason }),
  });
}

/** `GET …/merge`: what merging the run's branch would land, or the line refusing it. */
export function fetchMergeLook(adwId: string): Promise<MergeLook> {
  return request(`api/sessions/${id(adwId)}/merge`);
}

/** `POST …/merge` (JSON, same origin, this machine only): lands the run's branch as `sssf merge` does. */
export function postMerge(adwId: string): Promise<LandResult> {
  return request(`api/sessions/${id(adwId)}/merge`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
}

/** `GET …/outcome`: why the run ended as it did. */
export function fetchOutcome(adwId: string): Promise<RunOutcome> {
  return request(`api/sessions/${id(adwId)}/outcome`);
}

/** `GET …/phase-changes`: what each phase changed, from the run's checkpoints. */
export function fetchPhaseChanges(adwId: string): Promise<PhaseChanges> {
  return request(`api/sessions/${id(adwId)}/phase-changes`);
}

/** `GET …/phase-changes/diff`: one phase's own diff, or the tree after `from` against the tree after `to`. */
export function fetchPhaseTreeDiff(
  adwId: string,
  ask: { phase: string } | { from: string; to: string },
): Promise<FileText> {
  return request(`api/sessions/${id(adwId)}/phase-changes/diff?${new URLSearchParams(ask)}`);
}

/** `GET …/final-envelope`: an accepted run's last accepted envelope, any other run's last one. */
export function fetchFinalEnvelope(adwId: string): Promise<FinalEnvelope> {
  return request(`api/sessions/${id(adwId)}/final-envelope`);
}

/** `GET …/base-drift`: how far the run's base branch moved, and whether its work still merges. */
export function fetchBaseDrift(adwId: string): Promise<BaseDrift> {
  return request(`api/sessions/${id(adwId)}/base-drift`);
}
