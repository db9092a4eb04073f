/**
 * `sssf/testing`: test doubles shipped with sssf so users can test their own workflows offline.
 */

export { FAKE_NO_PROXY, fakeModelEnv, fakeProxyEnv } from "./fake-model/fake-model-env.js";
export {
  describeEgress,
  type FakeModelRun,
  type StartFakeModelRunOptions,
  startFakeModelRun,
} from "./fake-model/fake-model-run.js";
export { createFakeModelServer } from "./fake-model/fake-model-server.js";
export { loadFakeScript } from "./fake-model/load-fake-script.js";
export {
  FAKE_PI_MODEL,
  FAKE_PI_MODEL_ID,
  FAKE_PI_PRICES,
  FAKE_PI_PROVIDER,
  type FakePiWorld,
  writeFakePiWorld,
  writePiAgentDir,
} from "./fake-model/pi-agent-dir.js";
export { type ParseResult, parseFakeScript } from "./fake-model/script-schema.js";
export type {
  CreateFakeModelServerOptions,
  EgressAttempt,
  FakeApi,
  FakeErrorKind,
  FakeHttpError,
  FakeMatch,
  FakeModelServer,
  FakeScript,
  FakeStep,
  FakeUsage,
  LoggedHeaders,
  LoggedRequest,
} from "./fake-model/types.js";
export { playRecordedRun, type RecordedRun } from "./recorded-run.js";
export {
  type CreateScriptedAgentOptions,
  createScriptedAgent,
  type ScriptedAgent,
  scriptedAgentCommand,
} from "./scripted-agent-kit.js";
export type { Script, ScriptedSend, ScriptedToolCall, ScriptedTurn, ScriptedUsage } from "./scripted-turn.js";
