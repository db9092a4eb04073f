export { ConfigError, type ConfigProblem } from "./config-error.js";
export { GitError, type GitFailure } from "./git-error.js";
export { PhaseFailedError } from "./phase-failed-error.js";
export { type RunProblem, RunRefusedError } from "./run-refused-error.js";
export { SessionLockedError } from "./session-locked-error.js";
export { isSssfError, SssfError, type SssfErrorCode } from "./sssf-error.js";
export { UsageError } from "./usage-error.js";
