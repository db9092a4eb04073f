/**
 * Wire types of the UI's JSON API and live stream, and the two limits they state. The Preact client
 * imports this module at build time, so server and client never drift. Rows are the trace rows of
 * `src/trace/events.ts`.
 */
import type {
  AgentSessionRow,
  EnvelopeRow,
  EventRow,
  GateResultRow,
  PhaseRow,
  ProcessRow,
  SessionRow,
} from "../../trace/events.js";
import type { RunOutcome } from "./review/review-types.js";

/**
 * A trace row as the API sends it. `_v` is its SQLite rowid: every rewrite of a row (an upsert) gives it
 * a larger one, so of two copies of a row the one with the larger `_v` is the newer. `_cut` is 1 when a
 * long text column was shortened to {@link TEXT_LIMIT} characters.
 */
export type Versioned<T> = T & { _v: number; _cut: number };

/** Longest text column value the API sends, in characters. */
export const TEXT_LIMIT = 32_768;

/**
 * Fields every snapshot carries. `tick` is the live hub's tick the counts are exact for: a client
 * adds the count increments of deltas with a larger tick only.
 */
export interface Snapshot {
  tick: number;
  /** Server time of the snapshot (ISO), to draw running bars against the server's clock. */
  now: string;
}

/** `GET /api/sessions`: one page of the filtered sessions, newest first. */
export interface SessionsPage extends Snapshot {
  sessions: Versioned<SessionRow>[];
  /** Sessions matching the filters, over all pages. */
  total: number;
  offset: number;
  limit: number;
  /** Every workflow name in the trace, for the filter. */
  workflows: string[];
  /** Why each finished, not accepted session of the page ended so (`review/run-outcome.ts`), by adw_id. */
  outcomes: Record<string, RunOutcome>;
}

/** Counted facts of one phase. */
export interface PhaseCounts {
  tool_calls: number;
  errors: number;
  gate_fails: number;
  /** Envelope attempts, valid or not. */
  attempts: number;
  /** Attempts whose envelope was invalid. */
  invalid: number;
}

/** What the UI knows about one agent of a run. */
export interface AgentInfo {
  agent: string;
  model: string | null;
  coding_agent: string | null;
  sends: number;
  /** The model's context window in tokens, when sssf knows it. */
  context_window: number | null;
}

/** Lane colors: the configured agents' colors, and the palette for agents the config does not name. */
export interface ColorScheme {
  colors: Record<string, string>;
  palette: string[];
}

/** `GET /api/sessions/:adw_id`: a run. */
export interface RunView extends Snapshot {
  session: Versioned<SessionRow>;
  phases: Versioned<PhaseRow>[];
  counts: Record<string, PhaseCounts>;
  agents: AgentInfo[];
  scheme: ColorScheme;
}

/** One prompt saved in the session directory (`{agent}/prompts/pNN-<phase>-<attempt>-<reason>.user.md`). */
export interface PromptFile {
  agent: string;
  file: string;
  attempt: number;
  reason: string;
  text: string;
  /** 1 when the file was longer than {@link TEXT_LIMIT} characters and `text` is its start. */
  cut: number;
}

/** The last system prompt an agent was sent (`{agent}/prompts/system.md`). */
export interface SystemPromptFile {
  agent: string;
  text: string;
  cut: number;
}

/** `GET /api/sessions/:adw_id/phases/:phase_id/tool-calls`: tool calls by time, a page of them. */
export interface ToolCallsPage {
  rows: Versioned<EventRow>[];
  offset: number;
  total: number;
}

/** `GET /api/sessions/:adw_id/phases/:phase_id`: everything about one phase. */
export interface PhaseDetail extends Snapshot {
  session: Versioned<SessionRow>;
  phase: Versioned<PhaseRow>;
  counts: PhaseCounts;
  /** The phase's events other than tool calls, by time (the latest {@link PHASE_EVENT_LIMIT}). */
  events: Versioned<EventRow>[];
  /** The latest page of tool calls. */
  tool_calls: ToolCallsPage;
  envelopes: Versioned<EnvelopeRow>[];
  gate_results: Versioned<GateResultRow>[];
  processes: Versioned<ProcessRow>[];
  prompts: PromptFile[];
  system_prompts: SystemPromptFile[];
  agents: AgentInfo[];
  scheme: ColorScheme;
}

/** Most non-tool events a phase snapshot carries. */
export const PHASE_EVENT_LIMIT = 5_000;

/** What one live client watches: every session row always, a run's phases, and one phase's rows. */
export interface LiveSubscription {
  adwId: string | null;
  phaseId: string | null;
}

/**
 * One `delta` message of `GET /api/live`: the rows written since the previous tick that the client's
 * subscription covers, and per phase the count increments of this tick.
 */
export interface LiveDelta {
  tick: number;
  sessions?: Versioned<SessionRow>[];
  phases?: Versioned<PhaseRow>[];
  agent_sessions?: Versioned<AgentSessionRow>[];
  counts?: Record<string, Partial<PhaseCounts>>;
  events?: Versioned<EventRow>[];
  envelopes?: Versioned<EnvelopeRow>[];
  gate_results?: Versioned<GateResultRow>[];
  processes?: Versioned<ProcessRow>[];
}

/** The `hello` message opening (and reopening) a live stream: the hub's tick at subscription. */
export interface LiveHello {
  tick: number;
}

/** Longest diff or log text the API sends, in characters; a longer one is cut with `cut: 1`. */
export const FILE_TEXT_LIMIT = 1_000_000;

/**
 * A diff or a log read from git or from the session directory, secrets redacted. `cut` is 1 when
 * `text` is the start of a longer text (`total_chars` says how long); `note` says why a part is
 * missing (git unavailable, the file gone).
 */
export interface FileText {
  text: string;
  cut: number;
  total_chars: number;
  /** Where it came from: `git diff <base>...<branch>`, `git show <sha>`, or the file's session-relative path. */
  source: string;
  note?: string;
}

/** A commit a code phase made (its `committed <sha>: <subject>` log event). */
export interface RunCommit {
  sha: string;
  subject: string;
  message: string;
  files: string[];
  phase_id: string | null;
  at: string;
}

/** A diff a code phase saved under `<session>/changes/` (its ChangesOutput envelope). */
export interface PhaseDiff {
  phase_id: string;
  envelope_id: string;
  /** The file's path relative to the session directory, or null when it is not inside it. */
  file: string | null;
  files: { path: string; change: string }[];
  diff_stat: string;
  summary: string;
}

/** `GET /api/sessions/:adw_id/changes`: what the run changed, where to read each diff. */
export interface RunChanges {
  branch: string | null;
  base_ref: string | null;
  /** Whether the total diff `base_ref...branch` can be asked for (the run had its own branch). */
  total: boolean;
  commits: RunCommit[];
  phase_diffs: PhaseDiff[];
}

/** One event found by `GET /api/sessions/:adw_id/search`. */
export interface SearchHit {
  id: string;
  phase_id: string | null;
  phase_number: number | null;
  phase_name: string | null;
  type: string;
  name: string;
  agent: string | null;
  started_at: string;
  /** The matched text with some context, from the name or the payload. */
  snippet: string;
}

/** `GET /api/sessions/:adw_id/search?q=`: events whose name or payload contains `q`, by time. */
export interface SearchResult {
  q: string;
  total: number;
  hits: SearchHit[];
}

/** Tokens and cost summed over a group. */
export interface UsageSum {
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
}

/** `GET /api/usage`: spend per day (UTC, from sessions) and per workflow, agent and model. */
export interface UsageReport {
  days: (UsageSum & { day: string })[];
  workflows: (UsageSum & { workflow: string })[];
  /** Agent phases by owner; `runs` counts phases. */
  agents: (UsageSum & { agent: string })[];
  /** Agent phases by the model and coding agent of their agent session; `runs` counts phases. */
  models: (UsageSum & { model: string; coding_agent: string })[];
}

/** A phase waiting for the engineer (`<session>/approvals/<phase_id>.request.json`). */
export interface PendingApproval {
  phase_id: string;
  phase: string;
  phase_number: number;
  question: string;
  details: Record<string, unknown>;
  asked_at: string;
}

/** `GET /api/sessions/:adw_id/approvals`. */
export interface ApprovalsView {
  pending: PendingApproval[];
}

/** `POST /api/sessions/:adw_id/approvals/:phase_id` answered. */
export interface ApprovalAnswered {
  phase_id: string;
  approved: boolean;
  reason: string;
  by: string;
  at: string;
}
