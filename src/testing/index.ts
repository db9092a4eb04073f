/**
 * `sssf/testing`: test doubles shipped with sssf so users can test their own workflows offline.
 */

export {
  type CreateScriptedAgentOptions,
  createScriptedAgent,
  type ScriptedAgent,
  scriptedAgentCommand,
} from "./scripted-agent-kit.js";
export type { Script, ScriptedSend, ScriptedToolCall, ScriptedTurn, ScriptedUsage } from "./scripted-turn.js";
