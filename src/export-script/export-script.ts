/**
 * `sssf export-script`: a stored run's model turns as a fake-model script, so the run can be executed
 * again through the real agent CLIs offline (`sssf run … --fake-script`), its tool calls really
 * running against the repository. Every string is redacted; the script is checked by the fake model's
 * own schema before it is handed back.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { parseFakeScript } from "../testing/fake-model/script-schema.js";
import type { FakeScript, FakeStep } from "../testing/fake-model/types.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { readAgentTurns } from "./read-agent-turns.js";
import type { RecordedSend } from "./recorded-turn.js";
import { overlappingSends, readSessionRecord, type TracedSend } from "./session-record.js";
import { turnSteps } from "./turns-to-steps.js";

/** A traced send as turns: one per tool call, then its reply. */
function tracedTurns(send: TracedSend): RecordedSend {
  return {
    turns: [
      ...send.toolCalls.map((call) => ({ text: "", toolCalls: [call], usage: null })),
      ...(send.reply === null ? [] : [{ text: send.reply, toolCalls: [], usage: null }]),
    ],
  };
}

export interface ExportScriptOptions {
  /** The folder holding the sessions (`config.sessionsDir`). */
  sessionsDir: string;
  adwId: string;
  /** Only this agent's turns. */
  agent?: string;
}

/** What was exported for one agent. */
export interface ExportedAgent {
  agent: string;
  coding_agent: string;
  sends: number;
  turns: number;
  steps: number;
  /** Why this agent's turns are not (all) in the script, naming the file and its phases. */
  missing: string | null;
}

export interface ExportedScript {
  script: FakeScript;
  adw_id: string;
  workflow: string | null;
  /** The run's request, as stored (redacted). */
  request: string | null;
  agents: ExportedAgent[];
  /** What the script leaves out or cannot promise, one sentence each. */
  notes: string[];
  /** Values the script holds as `[redacted:…]` placeholders. */
  redacted: number;
}

/**
 * Builds the script of run `adwId`. Throws UsageError for an unknown adw_id or `--agent`. An agent
 * whose records are incomplete is exported as far as they go and named in `missing`.
 */
export function exportScript(options: ExportScriptOptions): ExportedScript {
  const root = path.join(options.sessionsDir, options.adwId);
  if (!/^[A-Za-z0-9_-]+$/.test(options.adwId) || !existsSync(root))
    throw new UsageError(`unknown adw_id ${options.adwId}: no session folder ${root}`, "<adw_id>");
  const record = readSessionRecord(root);
  if (options.agent !== undefined && !record.agents.has(options.agent))
    throw new UsageError(
      `--agent: run ${options.adwId} has no agent ${options.agent} (its agents: ${[...record.agents.keys()].join(", ") || "none"})`,
      "--agent",
    );
  const wanted = [...record.agents].filter(
    ([agent]) => options.agent === undefined || agent === options.agent,
  );
  const notes = [...record.notes];
  const queues = new Map<string, RecordedSend[]>();
  const agents: ExportedAgent[] = [];
  for (const [agent, codingAgent] of wanted) {
    const read = readAgentTurns(path.join(root, agent), codingAgent);
    const traced = (record.sends ?? []).filter((send) => send.agent === agent);
    const phases = [...new Set(traced.map((send) => send.phase))];
    const where = phases.length > 0 ? ` (phases ${phases.join(", ")})` : "";
    notes.push(...read.notes.map((note) => `${agent}: ${note}`));
    // Without its stream, an agent's sends are rebuilt from the trace: less faithful, and said so.
    const fromTrace = read.absent === true && traced.some((send) => send.reply !== null);
    const sends = fromTrace ? traced.map(tracedTurns) : read.sends;
    queues.set(agent, [...sends]);
    const missing =
      read.missing === undefined
        ? null
        : fromTrace
          ? `agent ${agent}${where}: ${read.missing}; its ${sends.length} send(s) are rebuilt from the trace: each traced tool call by the name sssf gave it (the CLI's own for pi), then the reply the send parsed; no tokens, no text between calls`
          : `agent ${agent}${where}: ${read.missing}; its turns are not in the script`;
    agents.push({
      agent,
      coding_agent: codingAgent,
      sends: sends.length,
      turns: sends.reduce((sum, send) => sum + send.turns.length, 0),
      steps: 0,
      missing,
    });
  }
  // The run's order: each traced send takes its agent's next recorded send.
  const ordered: { agent: string; send: RecordedSend }[] = [];
  for (const traced of record.sends ?? []) {
    const next = queues.get(traced.agent)?.shift();
    if (next !== undefined) ordered.push({ agent: traced.agent, send: next });
  }
  for (const [agent, left] of queues) {
    if (record.sends !== null && left.length > 0)
      notes.push(
        `${agent}: ${left.length} recorded send(s) beyond the trace's sends are played after the run's own`,
      );
    ordered.push(...left.map((send) => ({ agent, send })));
  }
  const parallel = overlappingSends((record.sends ?? []).filter((send) => queues.has(send.agent)));
  if (parallel.length > 0)
    notes.push(
      `sends overlapped in time (${parallel.join("; ")}): the script plays them in the order they started; a re-run whose parallel sends start in another order gets another agent's answer`,
    );
  const steps: FakeStep[] = [];
  let redacted = 0;
  for (const { agent, send } of ordered) {
    const exported = agents.find((entry) => entry.agent === agent);
    for (const turn of send.turns) {
      const played = turnSteps(turn);
      steps.push(...played.steps);
      redacted += played.redacted;
      if (exported !== undefined) exported.steps += played.steps.length;
    }
  }
  // Anything not recorded gets an error, never an invented answer.
  const script: FakeScript = { steps, fallback: "error" };
  const checked = parseFakeScript(script);
  if (!checked.ok)
    throw new SssfError(
      "internal",
      `export-script built an invalid script: ${checked.problems.map((p) => p.message).join("; ")}`,
    );
  return {
    script,
    adw_id: options.adwId,
    workflow: record.workflow,
    request: record.request === null ? null : redactSecrets(record.request),
    agents,
    notes: notes.map(redactSecrets),
    redacted,
  };
}
