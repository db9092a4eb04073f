/**
 * What a session's files other than `events.jsonl` still say, for `sssf db rebuild` when that file is
 * lost or cut short: `prompts/` (one `pNN-<phase>-<attempt>-<reason>.user.md` per send: the agent
 * phases and their sends), `raw_output.jsonl` (each send's reply, usage and tool calls, read back by
 * the agent's runtime), each `envelope.json` (an agent's last accepted envelope) and
 * `code/pNN-<phase>.envelope.json` (a code phase's), `agent_map.json` (each agent's session), and the
 * `{runtime}_sessions/` folder names. Rows that events.jsonl holds are never replaced: only what it
 * lacks is added, and the report says what no file holds.
 */

import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { RecordedSend } from "../runtimes/runtime.js";
import type {
  AgentSessionRow,
  EnvelopeRow,
  EventRow,
  PhaseRow,
  SessionRow,
  TraceRecord,
} from "../trace/events.js";
import { readLinesSync } from "../trace/jsonl-lines.js";
import { phaseId } from "../trace/rows.js";
import type { AgentMapEntry } from "./agent-map.js";
import {
  addUsage,
  CODE_ENVELOPE_FILE,
  isObject,
  KnownRows,
  mtime,
  NOT_AGENTS,
  order,
  PROMPT_FILE,
  type PromptFile,
  readJson,
  recoveredEnvelope,
  recoveredPhase,
  sameEnvelope,
} from "./recovered-rows.js";

/** The reader of a runtime's raw_output.jsonl, by `coding_agent`; undefined when it has none. */
export type RecordedSendsOf = (
  codingAgent: string,
) => ((lines: readonly string[]) => RecordedSend[]) | undefined;

/** What the recovery found and could not find, for the per-session report. */
interface Findings {
  phases: number;
  envelopes: number;
  agentSessions: number;
  toolCalls: number;
  sources: Set<string>;
  lost: Set<string>;
}

/** One session's recovery: `saw` each record of its events.jsonl, then `finish`. */
export class SessionRecovery {
  readonly #known = new KnownRows();
  readonly #records: TraceRecord[] = [];
  readonly #found: Findings = {
    phases: 0,
    envelopes: 0,
    agentSessions: 0,
    toolCalls: 0,
    sources: new Set(),
    lost: new Set(),
  };

  constructor(
    private readonly adwId: string,
    private readonly dir: string,
    private readonly sendsOf: RecordedSendsOf,
  ) {}

  saw(record: TraceRecord): void {
    this.#known.saw(record);
  }

  /**
   * The rows the other files add (in an order that upserts cleanly) and the report line, or null when
   * events.jsonl was whole and nothing was missing. `events` says what events.jsonl was: absent, cut
   * (lines that were not records: a truncated last line) or whole.
   */
  finish(events: "absent" | "cut" | "whole"): { records: TraceRecord[]; report: string | null } {
    const agentMap = this.#readAgentMap();
    // An agent named in the map whose folder is gone still has its session.
    const agents = [...new Set([...this.#agentFolders(), ...Object.keys(agentMap ?? {})])].sort();
    const phases = new Map<string, PhaseRow>();
    for (const agent of agents) this.#recoverAgent(agent, agentMap?.[agent], phases);
    this.#recoverCodePhases(phases);
    if (agentMap === undefined && agents.length > 0) this.#found.lost.add("agent_map.json");
    for (const phase of phases.values()) this.#add({ table: "phases", row: phase });
    if (!this.#known.session) this.#recoverSession([...phases.values()]);
    // Phases first in the list: a reader sees no envelope before its phase.
    this.#records.sort((a, b) => order(a) - order(b));
    return { records: this.#records, report: this.#report(events) };
  }

  #add(record: TraceRecord): void {
    this.#records.push(record);
  }

  #readAgentMap(): Record<string, AgentMapEntry> | undefined {
    const file = path.join(this.dir, "agent_map.json");
    if (!existsSync(file)) return undefined;
    const map = readJson(file);
    if (!isObject(map)) {
      this.#found.lost.add("agent_map.json (unreadable)");
      return undefined;
    }
    return map as Record<string, AgentMapEntry>;
  }

  #agentFolders(): string[] {
    return readdirSync(this.dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !NOT_AGENTS.has(entry.name) && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort();
  }

  #prompts(agentDir: string): PromptFile[] | undefined {
    const dir = path.join(agentDir, "prompts");
    if (!existsSync(dir)) return undefined;
    const prompts: PromptFile[] = [];
    for (const name of readdirSync(dir)) {
      const match = PROMPT_FILE.exec(name);
      if (match === null) continue;
      prompts.push({
        number: Number(match[1]),
        phase: match[2] as string,
        attempt: Number(match[3]),
        reason: match[4] as EnvelopeRow["reason"],
        file: path.join(dir, name),
      });
    }
    return prompts.sort((a, b) => a.number - b.number || a.attempt - b.attempt);
  }

  /** The coding agent of an agent folder: its map entry's, else its `{runtime}_sessions/` folder's. */
  #codingAgent(agentDir: string, entry: AgentMapEntry | undefined): string | undefined {
    const named: unknown = entry?.coding_agent;
    if (typeof named === "string") return named;
    const folder = readdirSync(agentDir).find((name) => name.endsWith("_sessions"));
    return folder?.slice(0, -"_sessions".length);
  }

  #recoverAgent(agent: string, entry: AgentMapEntry | undefined, phases: Map<string, PhaseRow>): void {
    const agentDir = path.join(this.dir, agent);
    if (!existsSync(agentDir)) {
      this.#found.lost.add(`${agent}/ (its prompts, replies and envelope)`);
      this.#recoverAgentSession(agent, entry, undefined, []);
      return;
    }
    const prompts = this.#prompts(agentDir);
    const codingAgent = this.#codingAgent(agentDir, entry);
    const rawFile = path.join(agentDir, "raw_output.jsonl");
    const envelopeFile = path.join(agentDir, "envelope.json");
    const accepted = existsSync(envelopeFile) ? readJson(envelopeFile) : undefined;
    if (existsSync(envelopeFile)) this.#found.sources.add("envelope.json");
    else this.#found.lost.add(`${agent}/envelope.json`);
    let sends: RecordedSend[] | undefined;
    if (existsSync(rawFile)) {
      const reader = codingAgent === undefined ? undefined : this.sendsOf(codingAgent);
      if (reader === undefined)
        this.#found.lost.add(
          `replies in ${agent}/raw_output.jsonl (${codingAgent ?? "unknown runtime"}: not read back)`,
        );
      else {
        sends = reader([...readLinesSync(rawFile)]);
        this.#found.sources.add("raw_output.jsonl");
      }
    } else this.#found.lost.add(`${agent}/raw_output.jsonl`);
    if (prompts === undefined) this.#found.lost.add(`${agent}/prompts/`);
    else this.#found.sources.add("prompts/");

    // Which prompt each envelope.json belongs to: the send whose reply carries it, else the agent's last.
    const list = prompts ?? [];
    let acceptedAt = -1;
    if (isObject(accepted)) {
      acceptedAt = list.length - 1;
      if (sends !== undefined)
        for (let i = list.length - 1; i >= 0; i--) {
          const text = sends[i]?.text;
          if (text != null && sameEnvelope(text, accepted)) {
            acceptedAt = i;
            break;
          }
        }
    }
    let lostReplies = 0;
    list.forEach((prompt, index) => {
      const id = phaseId(this.adwId, prompt.number);
      if (!this.#known.phases.has(id) && !phases.has(id)) {
        phases.set(id, recoveredPhase(this.adwId, prompt, agent, mtime(prompt.file)));
        this.#found.phases += 1;
      }
      const send = sends?.[index];
      const phase = phases.get(id);
      if (phase !== undefined && send !== undefined) addUsage(phase, send);
      if (send !== undefined) this.#recoverToolCalls(agent, id, send);
      if (this.#known.envelopes.has(`${id} ${agent} ${prompt.attempt}`)) return;
      const isAccepted = index === acceptedAt;
      if (send === undefined && !isAccepted) {
        lostReplies += 1;
        return;
      }
      const row = recoveredEnvelope({
        adwId: this.adwId,
        agent,
        prompt,
        text: send?.text ?? (isAccepted ? JSON.stringify(accepted) : null),
        accepted: isAccepted,
      });
      this.#add({ table: "envelopes", row });
      this.#found.envelopes += 1;
      if (phase !== undefined && isAccepted && row.valid === 1 && row.status === "success")
        phase.status = "success";
    });
    if (lostReplies > 0) this.#found.lost.add(`the replies of ${lostReplies} of ${agent}'s send(s)`);
    if (sends !== undefined && sends.length > list.length)
      this.#found.lost.add(
        `which phase ${sends.length - list.length} of ${agent}'s sends belong to (no prompt file)`,
      );

    this.#recoverAgentSession(agent, entry, sends, list, codingAgent);
  }

  #recoverAgentSession(
    agent: string,
    entry: AgentMapEntry | undefined,
    sends: RecordedSend[] | undefined,
    list: PromptFile[],
    codingAgent?: string,
  ): void {
    const rawFile = path.join(this.dir, agent, "raw_output.jsonl");
    if (entry !== undefined && !this.#known.agentSessions.has(agent)) {
      const firstPrompt = list[0];
      const row: AgentSessionRow = {
        adw_id: this.adwId,
        agent,
        session_id: String(entry.session_id),
        model: String(entry.model ?? ""),
        coding_agent: String(entry.coding_agent ?? codingAgent ?? ""),
        sends: sends?.length ?? list.length,
        created_at:
          firstPrompt === undefined ? mtime(path.join(this.dir, "agent_map.json")) : mtime(firstPrompt.file),
        updated_at: existsSync(rawFile) ? mtime(rawFile) : mtime(path.join(this.dir, "agent_map.json")),
      };
      this.#add({ table: "agent_sessions", row });
      this.#found.agentSessions += 1;
      this.#found.sources.add("agent_map.json");
    }
  }

  #recoverToolCalls(agent: string, phase: string, send: RecordedSend): void {
    for (const call of send.toolCalls) {
      const startedAt = call.startedAt.toISOString();
      if (this.#known.toolCalls.has(`${agent} ${call.name} ${startedAt}`)) continue;
      const row: EventRow = {
        id: `evt_file_${phase}_${agent}_${this.#found.toolCalls}`,
        adw_id: this.adwId,
        phase_id: phase,
        parent_id: null,
        type: "tool_call",
        name: call.name,
        agent,
        ok: call.ok ? 1 : 0,
        started_at: startedAt,
        ended_at: call.endedAt.toISOString(),
        duration_ms: call.endedAt.getTime() - call.startedAt.getTime(),
        payload: JSON.stringify({ tool: call.tool, args: call.args, result: call.result }),
      };
      this.#add({ table: "events", row });
      this.#found.toolCalls += 1;
    }
  }

  #recoverCodePhases(phases: Map<string, PhaseRow>): void {
    const dir = path.join(this.dir, "code");
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const match = CODE_ENVELOPE_FILE.exec(name);
      if (match === null) continue;
      const file = path.join(dir, name);
      const envelope = readJson(file);
      if (!isObject(envelope)) continue;
      const number = Number(match[1]);
      const attempt = match[3] === undefined ? 1 : Number(match[3]);
      const id = phaseId(this.adwId, number);
      const at = mtime(file);
      this.#found.sources.add("code/*.envelope.json");
      if (!this.#known.phases.has(id) && !phases.has(id)) {
        const phase = recoveredPhase(
          this.adwId,
          { number, phase: match[2] as string, attempt, reason: "initial", file },
          "",
          at,
        );
        phase.kind = "code";
        phases.set(id, phase);
        this.#found.phases += 1;
      }
      const status = typeof envelope.status === "string" ? envelope.status : null;
      const phase = phases.get(id);
      if (phase !== undefined) phase.status = status === "success" ? "success" : "fail";
      // The code phase's owner names the envelope's agent: known only from events.jsonl.
      if ([...this.#known.envelopes].some((key) => key.startsWith(`${id} `) && key.endsWith(` ${attempt}`)))
        continue;
      const json = JSON.stringify(envelope);
      const row: EnvelopeRow = {
        id: `env_file_${id}_code_${attempt}`,
        adw_id: this.adwId,
        phase_id: id,
        agent: phase?.owner ?? "",
        attempt,
        reason: "initial",
        output_type: "",
        valid: 1,
        status,
        envelope_json: json,
        raw_text: json,
        errors: "[]",
        created_at: at,
        accepted: status === "success" ? 1 : 0,
      };
      this.#add({ table: "envelopes", row });
      this.#found.envelopes += 1;
    }
  }

  #recoverSession(phases: PhaseRow[]): void {
    const times = phases.map((phase) => phase.started_at).sort();
    const startedAt = times[0] ?? mtime(this.dir);
    const sum = (
      key: "input_tokens" | "output_tokens" | "cache_read_tokens" | "cache_write_tokens" | "cost_usd",
    ) => phases.reduce((total, phase) => total + phase[key], 0);
    const row: SessionRow = {
      adw_id: this.adwId,
      workflow: "",
      request: "",
      status: "interrupted",
      accepted: null,
      reason: "rebuilt from the session files without events.jsonl: the run's outcome is not on file",
      cwd: "",
      started_at: startedAt,
      ended_at: null,
      duration_ms: null,
      input_tokens: sum("input_tokens"),
      output_tokens: sum("output_tokens"),
      cache_read_tokens: sum("cache_read_tokens"),
      cache_write_tokens: sum("cache_write_tokens"),
      cost_usd: sum("cost_usd"),
      archived: 0,
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
      pid: null,
      host: null,
    };
    this.#add({ table: "sessions", row });
  }

  #report(events: "absent" | "cut" | "whole"): string | null {
    const found = this.#found;
    const added = found.phases + found.envelopes + found.agentSessions + found.toolCalls;
    if (events === "whole" && added === 0) return null;
    const head =
      events === "absent"
        ? "no events.jsonl"
        : events === "cut"
          ? "events.jsonl cut short"
          : "events.jsonl lacks rows";
    const parts = [
      `${found.phases} phase(s)`,
      `${found.envelopes} envelope(s)`,
      `${found.agentSessions} agent session(s)`,
      `${found.toolCalls} tool call(s)`,
    ];
    const sources = found.sources.size > 0 ? ` from ${[...found.sources].join(", ")}` : "";
    const lost =
      events === "absent"
        ? [
            "workflow, request, cwd and outcome",
            "engineer phases",
            "phase and agent timings (file times stand in)",
            "gate results, processes, steps and logs",
            ...found.lost,
          ]
        : [...found.lost];
    return `adw_id ${this.adwId}: ${head}; rebuilt ${parts.join(", ")}${sources}${lost.length > 0 ? `; not recoverable: ${lost.join(", ")}` : ""}`;
  }
}
