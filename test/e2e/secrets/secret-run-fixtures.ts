import { PATTERN_SAMPLES, PATTERN_TEXT } from "../../util/secrets/secret-fixtures.js";

/** In the agent's configured `env` only. */
export const AGENT_VALUE = "agentEnvSecret-7Hq2-Lw9x-Zp4";
/** In sssf's own environment (and so inherited by the agent and the suite). */
export const SSSF_VALUE = "sssfEnvSecret-3Kd8-Mv1c-Tr6";
/** In the quality suite's configured `env` only. */
export const SUITE_VALUE = "suiteEnvSecret-5Nb0-Qx2w-Yu7";

/** Every secret the e2e runs plant: a token of each pattern and the three env values. */
export const E2E_SECRETS = [
  ...PATTERN_SAMPLES,
  { kind: "agent env value", secret: AGENT_VALUE },
  { kind: "sssf env value", secret: SSSF_VALUE },
  { kind: "suite env value", secret: SUITE_VALUE },
];
/** All of them in one line of prose. */
export const ALL = `${PATTERN_TEXT} ; agent ${AGENT_VALUE} ; sssf ${SSSF_VALUE} ; suite ${SUITE_VALUE}`;
/** sssf's environment in these runs: a secret-named variable. */
export const SSSF_ENV = { SSSF_E2E_API_KEY: SSSF_VALUE };
