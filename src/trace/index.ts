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
export { createUpserter, type OpenTraceDbOptions, openTraceDb } from "./database.js";
export * from "./events.js";
export { newId } from "./ids.js";
export { type OpenTraceStoreOptions, openTraceConnection, openTraceStore } from "./open-store.js";
export {
  getSession,
  type ListEventsOptions,
  type ListSessionsOptions,
  listAgentSessions,
  listEnvelopes,
  listEvents,
  listGateResults,
  listPhases,
  listProcesses,
  listSessions,
  maxPhaseNumber,
  readTable,
} from "./queries.js";
export { type RebuildOptions, type RebuildResult, rebuildDatabase } from "./rebuild.js";
export { redactRecord } from "./redact-record.js";
export { ForeignTraceError, migrate, SCHEMA_VERSION } from "./schema.js";
export type { RunResult, SqlParams, TraceSql, TraceStore } from "./store.js";
export { getStoreSession, listStoreEvents, listStoreSessions, readStoreTable } from "./store-queries.js";
export { Tracer, type TracerOptions, type TracerStats } from "./tracer.js";
