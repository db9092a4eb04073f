import { SssfError } from "./sssf-error.js";

/**
 * Thrown out of a phase handle when the phase cannot succeed (an agent that never produced a valid
 * envelope, declared `status: "fail"`, or kept violating its gates). The phase is already traced as
 * `fail` when this is thrown; a workflow may catch it to run a fix loop.
 */
export class PhaseFailedError extends SssfError {
  readonly phase: string;
  readonly reason: string;
  /** What the phase's `error` event carries besides the reason (a budget overrun's figures). */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(phase: string, reason: string, details?: Record<string, unknown>) {
    super("phase_failed", `phase ${phase} failed: ${reason}`, { exitCode: 1 });
    this.name = "PhaseFailedError";
    this.phase = phase;
    this.reason = reason;
    this.details = details;
  }
}
