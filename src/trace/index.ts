export {
  isSecretVariableName,
  KNOWN_SECRET_VARIABLES,
  MIN_SECRET_VALUE_LENGTH,
  placeholder,
  redactSecrets,
  registerSecretEnv,
  registerSecretValues,
} from "../util/secrets/redact.js";
export { redactJsonText, redactJsonValue } from "../util/secrets/redact-json.js";
export { type ColumnDeclaration, columnNames, TABLE_COLUMNS } from "./columns.js";
export * from "./events.js";
export { newId } from "./ids.js";
export { type OpenTraceStoreOptions, openTraceConnection, openTraceStore } from "./open-store.js";
export { type RebuildOptions, type RebuildResult, rebuildDatabase } from "./rebuild.js";
export { redactRecord } from "./redact-record.js";
export { ForeignTraceError } from "./schema.js";
export type { RunResult, SqlParams, TraceSql, TraceStore } from "./store.js";
export {
  getSession,
  type ListEventsOptions,
  type ListSessionsOptions,
  latestAcceptedEnvelope,
  listAgentSessions,
  listEnvelopes,
  listEvents,
  listGateResults,
  listPhases,
  listProcesses,
  listSessions,
  listSteps,
  maxPhaseNumber,
  readTable,
} from "./store-queries.js";
export { checkStoreShape, migrateStore, SCHEMA_VERSION } from "./store-schema.js";
export { Tracer, type TracerOptions, type TracerStats } from "./tracer.js";
