import type { AgentConfig } from "../config/config-types.js";
import { type AgentMapEntry, newAgentSessionId, readAgentMap, updateAgentMap } from "./agent-map.js";
import { nowIso, type SessionTrace } from "./session-trace.js";

/** The conversation one agent continues across calls (and across joins) of a session. */
export interface AgentSessionState {
  agent: string;
  sessionId: string;
  nativeSessionId: string | undefined;
  model: string;
  codingAgent: string;
  sends: number;
  createdAt: string;
}

/**
 * Finds or creates each agent's session from `agent_map.json`. A model or runtime change since the
 * map was written starts a fresh session (never a bad resume) and says so in the trace.
 */
export class AgentSessions {
  private readonly states = new Map<string, AgentSessionState>();
  private readonly agentMapFile: string;
  private readonly trace: SessionTrace;
  private readonly adwId: string;

  constructor(options: { agentMapFile: string; trace: SessionTrace; adwId: string }) {
    this.agentMapFile = options.agentMapFile;
    this.trace = options.trace;
    this.adwId = options.adwId;
  }

  resolve(agent: AgentConfig, phaseId: string): AgentSessionState {
    const known = this.states.get(agent.name);
    if (known) return known;
    const entry: AgentMapEntry | undefined = readAgentMap(this.agentMapFile)[agent.name];
    let state: AgentSessionState;
    if (entry && entry.model === agent.model && entry.coding_agent === agent.codingAgent) {
      state = {
        agent: agent.name,
        sessionId: entry.session_id,
        nativeSessionId: entry.native_session_id,
        model: entry.model,
        codingAgent: entry.coding_agent,
        sends: 1,
        createdAt: nowIso(),
      };
      this.trace.event({
        type: "log",
        name: `${agent.name} resumes session ${entry.session_id}`,
        phaseId,
        agent: agent.name,
        payload: { session_id: entry.session_id, model: entry.model },
      });
    } else {
      state = {
        agent: agent.name,
        sessionId: newAgentSessionId(this.adwId, agent.name),
        nativeSessionId: undefined,
        model: agent.model,
        codingAgent: agent.codingAgent,
        sends: 0,
        createdAt: nowIso(),
      };
      if (entry) {
        this.trace.event({
          type: "log",
          name: `${agent.name}: ${entry.coding_agent}/${entry.model || "default"} changed to ${agent.codingAgent}/${agent.model || "default"}; starting a fresh session`,
          phaseId,
          agent: agent.name,
          payload: { previous: entry, session_id: state.sessionId },
        });
      }
    }
    this.states.set(agent.name, state);
    return state;
  }

  /** Records a completed send: the map entry exists from the first send on, so later sends resume. */
  recordSend(state: AgentSessionState, nativeSessionId: string | undefined): void {
    const firstSend = state.sends === 0;
    state.sends += 1;
    const nativeChanged = nativeSessionId !== undefined && nativeSessionId !== state.nativeSessionId;
    if (nativeChanged) state.nativeSessionId = nativeSessionId;
    if (firstSend || nativeChanged) {
      const entry: AgentMapEntry = {
        session_id: state.sessionId,
        model: state.model,
        coding_agent: state.codingAgent,
      };
      if (state.nativeSessionId !== undefined) entry.native_session_id = state.nativeSessionId;
      updateAgentMap(this.agentMapFile, state.agent, entry);
    }
    this.trace.writeAgentSession({
      adw_id: this.adwId,
      agent: state.agent,
      session_id: state.sessionId,
      model: state.model,
      coding_agent: state.codingAgent,
      sends: state.sends,
      created_at: state.createdAt,
      updated_at: nowIso(),
    });
  }
}
