import { PhaseFailedError } from "../errors/phase-failed-error.js";

/**
 * The phase failed because its corrections ran out on the agent's model: the envelope stayed invalid
 * after its JSON fixes, or its gates still failed after its retries. A model ladder climbs on this
 * failure only (`model-ladder.ts`); a failed send, `status: "fail"` or a breach fails the phase as is.
 */
export class CorrectionsExhaustedError extends PhaseFailedError {}
