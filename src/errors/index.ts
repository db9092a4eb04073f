export { ConfigError, type ConfigProblem } from "./config-error.js";
export { PhaseFailedError } from "./phase-failed-error.js";
export { SessionLockedError } from "./session-locked-error.js";
export { isSssfError, SssfError, type SssfErrorCode } from "./sssf-error.js";
export { UnsupportedCapabilityError } from "./unsupported-capability-error.js";
export { UsageError } from "./usage-error.js";
