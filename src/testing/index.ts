/**
 * `sssf/testing`: test doubles shipped with sssf so users can test their own workflows offline.
 */

export { FAKE_NO_PROXY, fakeModelEnv, fakeProxyEnv } from "./fake-model/fake-model-env.js";
export { createFakeModelServer } from "./fake-model/fake-model-server.js";
export { loadFakeScript } from "./fake-model/load-fake-script.js";
export { type ParseResult, parseFakeScript } from "./fake-model/script-schema.js";
export type {
  CreateFakeModelServerOptions,
  EgressAttempt,
  FakeApi,
  FakeMatch,
  FakeModelServer,
  FakeScript,
  FakeStep,
  FakeUsage,
  LoggedHeaders,
  LoggedRequest,
} from "./fake-model/types.js";
export {
  type CreateScriptedAgentOptions,
  createScriptedAgent,
  type ScriptedAgent,
  scriptedAgentCommand,
} from "./scripted-agent-kit.js";
export type { Script, ScriptedSend, ScriptedToolCall, ScriptedTurn, ScriptedUsage } from "./scripted-turn.js";
