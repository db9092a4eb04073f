/**
 * Wire types of the reviewer's routes (`review-routes.ts`): why a run ended as it did, what each phase
 * changed, and the run's final envelope. The client imports them at build time, as it does api-types.
 */

/** Why a run ended: one kind per structured cause the trace records. */
export type OutcomeKind =
  | "running"
  | "accepted"
  | "baseline_stop"
  | "fixes_exhausted"
  | "suite_failed"
  | "review_rejected"
  | "invalid_envelope"
  | "gate_violation"
  | "agent_failed"
  | "agent_declared_fail"
  | "budget"
  | "interrupted"
  | "killed"
  | "crashed"
  | "not_accepted";

/** `GET /api/sessions/:adw_id/outcome`, and one entry of `GET /api/sessions`' `outcomes`. */
export interface RunOutcome {
  adw_id: string;
  kind: OutcomeKind;
  /** A few words for the run list (`fixes exhausted (2)`, `interrupted (SIGINT)`). */
  label: string;
  /** The whole reason: the session's reason, else the failing phase's error. */
  detail: string;
  /** The phase the cause belongs to, when there is one. */
  phase_id: string | null;
}

/** One phase that ran between two checkpoints of the run's worktree. */
export interface PhaseTree {
  phase_id: string;
  number: number;
  name: string;
  kind: string;
  owner: string;
  /** The checkpoint commit taken before the phase. */
  before: string;
  /** The tree after it: the next phase's checkpoint, else the branch tip; null when neither is known. */
  after: string | null;
  /** Whether the phase changed the tree; null when git cannot tell (objects gone). */
  changed: boolean | null;
  /** Paths it changed (empty when unknown). */
  files: string[];
}

/** `GET /api/sessions/:adw_id/phase-changes`: what each phase changed, from the run's checkpoints. */
export interface PhaseChanges {
  phases: PhaseTree[];
  /** The first build phase and the last fix after it, when the run had both: `diff?from=&to=` compares them. */
  fix_vs_build: { from: string; to: string } | null;
  /** Why there are no per-phase diffs (in place, no checkpoints, the repository or its objects gone); null when there are. */
  note: string | null;
}

/** `GET /api/sessions/:adw_id/final-envelope`: an accepted run's last accepted envelope, any other run's last envelope. */
export interface FinalEnvelope {
  envelope_id: string;
  phase_id: string;
  phase: string;
  output_type: string;
  /** `accepted` (crossed the phase boundary), `valid` or `invalid`. */
  standing: "accepted" | "valid" | "invalid";
  /** The parsed envelope, or null when it never parsed (then `raw_text`). */
  envelope: unknown;
  raw_text: string;
}

/** `GET /api/sessions/:adw_id/base-drift`: how far the run's base branch moved, and whether its work still merges. */
export interface BaseDrift {
  /** The branch the run started from (or its `--merge` target), or null when unknown. */
  base: string | null;
  /** The commit the run started from. */
  base_ref: string | null;
  base_tip: string | null;
  /** Commits the base gained since the run's base; null when unknown. */
  behind: number | null;
  /** Files that would conflict merging the run's work into the base now (empty: clean); null when git cannot tell. */
  conflicts: string[] | null;
  /** The commit holding the run's work: its branch tip, else its last checkpoint. */
  work: string | null;
  /** Why something is unknown; null when everything is. */
  note: string | null;
}
