import { writeFileSync } from "node:fs";
import path from "node:path";
import type { SendReason } from "../api/send-hook.js";
import type { AgentSendResult, ToolCall } from "../runtimes/runtime.js";
import type { EventRow, ProcessRow } from "../trace/events.js";
import { redactSecrets } from "../trace/redact.js";
import { endedProcessRow, startedProcessRow } from "../trace/rows.js";
import type { CallContext } from "./call-context.js";

export interface SendInput {
  systemPrompt: string;
  prompt: string;
  /** 1-based send number within the call, and why it was sent. */
  attempt: number;
  reason: SendReason;
  /** The call's JSON Schema for runtimes that enforce it natively (JSON contract only). */
  outputSchema?: Record<string, unknown> | undefined;
}

/** Saves the prompts as sent, secrets redacted (the agent itself is sent them whole). */
function saveSentPrompt({ agent, phase }: CallContext, input: SendInput): void {
  const stem = `p${String(phase.row.number).padStart(2, "0")}-${phase.row.name}-${input.attempt}-${input.reason}`;
  const prompt = redactSecrets(input.prompt);
  writeFileSync(path.join(agent.dirs.prompts, `${stem}.user.md`), prompt);
  if (input.reason === "initial") {
    writeFileSync(path.join(agent.dirs.prompts, "system.md"), redactSecrets(input.systemPrompt));
    writeFileSync(path.join(agent.dirs.prompts, "user.md"), prompt);
  }
}

/**
 * One send into the agent's session: saves the exact prompt first, runs the runtime with tracing
 * (agent span, one `tool_call` per tool call, processes, usage), and records the send in the agent
 * map. `watch` sees each tool call before the reporter does. Never throws for agent failures: they
 * come back in the result.
 */
export async function sendToAgent(
  context: CallContext,
  input: SendInput,
  watch: (call: ToolCall) => void = () => {},
): Promise<AgentSendResult> {
  const { run, agent, phase } = context;
  const { trace } = run;
  const { session, row } = phase;
  const name = agent.config.name;
  saveSentPrompt(context, input);
  const span: EventRow = trace.event({
    type: "agent_start",
    name: `${name} ${input.reason === "initial" ? "call" : input.reason.replace("_", " ")} #${input.attempt}`,
    phaseId: row.id,
    agent: name,
    endedAt: null,
    payload: {
      session_id: session.sessionId,
      resume: session.sends > 0,
      attempt: input.attempt,
      reason: input.reason,
    },
  });
  const processes = new Map<number, ProcessRow>();
  const result = await agent.runtime.send(
    {
      adwId: run.adwId,
      agent: name,
      sessionId: session.sessionId,
      resume: session.sends > 0,
      nativeSessionId: session.nativeSessionId,
      sessionDir: agent.dirs.runtimeSessions,
      rawOutputPath: agent.dirs.rawOutput,
      model: agent.config.model,
      thinking: agent.config.thinking,
      tools: agent.config.tools,
      systemPrompt: input.systemPrompt,
      prompt: input.prompt,
      cwd: run.repoRoot,
      contextHandoffDir: run.contextHandoffDir,
      command: agent.config.command,
      env: agent.config.env,
      timeouts: agent.config.timeouts,
      signal: run.signal,
      outputSchema: input.outputSchema,
    },
    {
      onProcessStart(started) {
        const process = startedProcessRow({ adwId: run.adwId, phaseId: row.id, agent: name, started });
        processes.set(started.pid, process);
        trace.writeProcess(process);
      },
      onProcessEnd(ended) {
        const process = processes.get(ended.pid);
        if (process) trace.writeProcess(endedProcessRow(process, ended));
      },
      onToolCall(call: ToolCall) {
        trace.event({
          type: "tool_call",
          name: call.name,
          phaseId: row.id,
          parentId: span.id,
          agent: name,
          ok: call.ok,
          startedAt: call.startedAt,
          endedAt: call.endedAt,
          payload: { tool: call.tool, args: call.args, result: call.result },
        });
        watch(call);
        run.reporter.toolCall(row, call);
      },
      onLog(message, details) {
        trace.event({
          type: "log",
          name: message,
          phaseId: row.id,
          parentId: span.id,
          agent: name,
          payload: details ?? {},
        });
      },
    },
  );
  run.sessions.recordSend(session, result.nativeSessionId);
  trace.addPhaseUsage(row, result.usage, result.contextTokens);
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
    name: `${name} ${result.ok ? "replied" : `failed: ${result.errorKind}`}`,
    phaseId: row.id,
    parentId: span.id,
    agent: name,
    ok: result.ok,
    startedAt: endedAt,
    payload: summary,
  });
  return result;
}
