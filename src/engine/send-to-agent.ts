import { writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentConfig } from "../config/config-types.js";
import type { AgentSendResult, Runtime, ToolCall } from "../runtimes/runtime.js";
import type { AgentSessionState, AgentSessions } from "../session/agent-session.js";
import type { RunReporter } from "../session/reporter.js";
import type { AgentDirs } from "../session/session-dirs.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { EventRow, PhaseRow, ProcessRow } from "../trace/events.js";
import { newId } from "../trace/ids.js";

export interface SendContext {
  adwId: string;
  agent: AgentConfig;
  runtime: Runtime;
  dirs: AgentDirs;
  phase: PhaseRow;
  trace: SessionTrace;
  sessions: AgentSessions;
  session: AgentSessionState;
  repoRoot: string;
  reporter: RunReporter;
  signal: AbortSignal;
}

export interface SendInput {
  systemPrompt: string;
  prompt: string;
  /** 1-based send number within the call, and why it was sent. */
  attempt: number;
  reason: "initial" | "json_fix" | "gate_fix";
}

function saveSentPrompt(context: SendContext, input: SendInput): void {
  const stem = `p${String(context.phase.number).padStart(2, "0")}-${context.phase.name}-${input.attempt}-${input.reason}`;
  writeFileSync(path.join(context.dirs.prompts, `${stem}.user.md`), input.prompt);
  if (input.reason === "initial") {
    writeFileSync(path.join(context.dirs.prompts, "system.md"), input.systemPrompt);
    writeFileSync(path.join(context.dirs.prompts, "user.md"), input.prompt);
  }
}

/**
 * One send into the agent's session: saves the exact prompt first, runs the runtime with tracing
 * (agent span, one `tool_call` per tool call, processes, usage), and records the send in the agent
 * map. Never throws for agent failures: they come back in the result.
 */
export async function sendToAgent(context: SendContext, input: SendInput): Promise<AgentSendResult> {
  const { trace, phase, agent, session } = context;
  saveSentPrompt(context, input);
  const span: EventRow = trace.event({
    type: "agent_start",
    name: `${agent.name} ${input.reason === "initial" ? "call" : input.reason.replace("_", " ")} #${input.attempt}`,
    phaseId: phase.id,
    agent: agent.name,
    endedAt: null,
    payload: {
      session_id: session.sessionId,
      resume: session.sends > 0,
      attempt: input.attempt,
      reason: input.reason,
    },
  });
  const processes = new Map<number, ProcessRow>();
  const result = await context.runtime.send(
    {
      adwId: context.adwId,
      agent: agent.name,
      sessionId: session.sessionId,
      resume: session.sends > 0,
      nativeSessionId: session.nativeSessionId,
      sessionDir: context.dirs.runtimeSessions,
      rawOutputPath: context.dirs.rawOutput,
      model: agent.model,
      thinking: agent.thinking,
      tools: agent.tools,
      systemPrompt: input.systemPrompt,
      prompt: input.prompt,
      cwd: context.repoRoot,
      command: agent.command,
      env: agent.env,
      timeouts: agent.timeouts,
      signal: context.signal,
    },
    {
      onProcessStart(started) {
        const row: ProcessRow = {
          id: newId("proc"),
          adw_id: context.adwId,
          phase_id: phase.id,
          agent: agent.name,
          pid: started.pid,
          command: JSON.stringify(started.command),
          cwd: started.cwd,
          status: "running",
          exit_code: null,
          signal: null,
          started_at: started.startedAt.toISOString(),
          ended_at: null,
          stderr_tail: null,
        };
        processes.set(started.pid, row);
        trace.writeProcess(row);
      },
      onProcessEnd(ended) {
        const row = processes.get(ended.pid);
        if (!row) return;
        Object.assign(row, {
          status: ended.status,
          exit_code: ended.exitCode,
          signal: ended.signal,
          ended_at: ended.endedAt.toISOString(),
          stderr_tail: ended.stderrTail || null,
        });
        trace.writeProcess(row);
      },
      onToolCall(call: ToolCall) {
        trace.event({
          type: "tool_call",
          name: call.name,
          phaseId: phase.id,
          parentId: span.id,
          agent: agent.name,
          ok: call.ok,
          startedAt: call.startedAt,
          endedAt: call.endedAt,
          payload: { tool: call.tool, args: call.args, result: call.result },
        });
        context.reporter.toolCall(phase, call);
      },
      onLog(message, details) {
        trace.event({
          type: "log",
          name: message,
          phaseId: phase.id,
          parentId: span.id,
          agent: agent.name,
          payload: details ?? {},
        });
      },
    },
  );
  context.sessions.recordSend(session, result.nativeSessionId);
  trace.addPhaseUsage(phase, result.usage, result.contextTokens);
  trace.addSessionUsage(result.usage);
  const endedAt = new Date();
  const summary = {
    session_id: session.sessionId,
    attempt: input.attempt,
    reason: input.reason,
    usage: {
      input_tokens: result.usage.inputTokens,
      output_tokens: result.usage.outputTokens,
      cache_read_tokens: result.usage.cacheReadTokens,
      cache_write_tokens: result.usage.cacheWriteTokens,
      cost: result.usage.costUsd,
    },
    context_tokens: result.contextTokens,
    ...(result.ok ? {} : { error_kind: result.errorKind, error: result.error, exit_code: result.exitCode }),
  };
  trace.endEvent(span, endedAt, result.ok, summary);
  trace.event({
    type: "agent_end",
    name: `${agent.name} ${result.ok ? "replied" : `failed: ${result.errorKind}`}`,
    phaseId: phase.id,
    parentId: span.id,
    agent: agent.name,
    ok: result.ok,
    startedAt: endedAt,
    payload: summary,
  });
  return result;
}
