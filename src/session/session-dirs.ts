import { mkdirSync } from "node:fs";
import path from "node:path";

/** The seed's session directory layout, as absolute paths. */
export interface SessionDirs {
  root: string;
  agentMap: string;
  contextHandoff: string;
  eventsFile: string;
  lockFile: string;
}

/** Per-agent folders inside a session. */
export interface AgentDirs {
  root: string;
  prompts: string;
  /** `{runtime}_sessions/`: the coding agent's own session state. */
  runtimeSessions: string;
  rawOutput: string;
  envelope: string;
}

export function sessionDirs(sessionsDir: string, adwId: string): SessionDirs {
  const root = path.join(sessionsDir, adwId);
  return {
    root,
    agentMap: path.join(root, "agent_map.json"),
    contextHandoff: path.join(root, "context_handoff"),
    eventsFile: path.join(root, "events.jsonl"),
    lockFile: path.join(root, ".lock"),
  };
}

export function agentDirs(session: SessionDirs, agent: string, runtimeId: string): AgentDirs {
  const root = path.join(session.root, agent);
  return {
    root,
    prompts: path.join(root, "prompts"),
    runtimeSessions: path.join(root, `${runtimeId}_sessions`),
    rawOutput: path.join(root, "raw_output.jsonl"),
    envelope: path.join(root, "envelope.json"),
  };
}

/** Creates the session's folders; safe to call on a session that already exists. */
export function ensureSessionDirs(dirs: SessionDirs): void {
  mkdirSync(dirs.contextHandoff, { recursive: true });
}

export function ensureAgentDirs(dirs: AgentDirs): void {
  mkdirSync(dirs.prompts, { recursive: true });
  mkdirSync(dirs.runtimeSessions, { recursive: true });
}
