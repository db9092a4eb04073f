import path from "node:path";
import type { SendReason } from "../../api/send-hook.js";
import type { AgentSendResult, ToolCall, Usage } from "../../runtimes/runtime.js";
import { hostPathsIn } from "../../sandbox/box-paths.js";
import { sandboxTracePayload } from "../../sandbox/resolve-sandbox.js";
import type { EventRow, ProcessRow } from "../../trace/events.js";
import { endedProcessRow, startedProcessRow } from "../../trace/rows.js";
import { JoinedRedactor } from "../../util/secrets/joined-redactor.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import type { PricedUsage } from "../budget.js";
import type { CallContext } from "../call-context.js";
import { liveProgress } from "./live-progress.js";
import { guardSend, overrunFailure } from "./send-guard.js";

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
function saveSentPrompt({ run, agent, phase }: CallContext, input: SendInput): void {
  const stem = `p${String(phase.row.number).padStart(2, "0")}-${phase.row.name}-${input.attempt}-${input.reason}`;
  const prompt = redactSecrets(input.prompt);
  run.files.write(path.join(agent.dirs.prompts, `${stem}.user.md`), prompt);
  if (input.reason === "initial") {
    // The system prompt seldom changes between an agent's phases: rewritten only when it does.
    const system = redactSecrets(input.systemPrompt);
    if (lastSystemPrompt.get(agent.dirs) !== system) {
      run.files.write(path.join(agent.dirs.prompts, "system.md"), system);
      lastSystemPrompt.set(agent.dirs, system);
    }
    run.files.write(path.join(agent.dirs.prompts, "user.md"), prompt);
  }
}

/** The system.md last written for an agent of a run (keyed by its folders), to skip rewriting it. */
const lastSystemPrompt = new WeakMap<object, string>();

/** The send's usage priced where its runtime reported no cost; an unpriced model is said once. */
function pricedUsage(context: CallContext, usage: Usage, spanId: string): PricedUsage {
  const { run, agent, phase } = context;
  const { name, model, codingAgent } = agent.config;
  const priced = run.budget.price(usage, model);
  if (priced.source === "unpriced" && run.budget.firstUnpriced(name, model)) {
    const which = model === "" ? `${codingAgent}'s default model` : `model ${model}`;
    run.trace.event({
      type: "log",
      name: `no price for ${which}: ${name}'s sends are recorded at $0 (${codingAgent} reports no cost); name the model in agents[].model and price it under prices:`,
      phaseId: phase.row.id,
      parentId: spanId,
      agent: name,
      payload: { cost_source: "unpriced", model, coding_agent: codingAgent },
    });
  }
  return priced;
}

/**
 * One send into the agent's session: refused when a budget is already spent, saves the exact prompt
 * first, runs the runtime with tracing (agent span, one `tool_call` per tool call, processes, usage),
 * and records the send in the agent map. Usage without a cost is priced (`prices:`); a budget overrun
 * while the send streams usage, or at the nearest time limit, aborts it (the agent's process group is
 * killed). `watch` sees each tool call before the reporter does. Never throws for agent failures:
 * they come back in the result; a budget overrun throws `PhaseFailedError` once the send is traced.
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
  const guard = guardSend(context);
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
      // The model this send went to (a ladder's rung or a fallback model), for `sssf envelopes`.
      model: agent.config.model,
      sandbox: sandboxTracePayload(agent.sandbox),
    },
  });
  const processes = new Map<number, ProcessRow>();
  const live = liveProgress(context, span);
  const outputs = new JoinedRedactor();
  let result: AgentSendResult;
  try {
    result = await agent.runtime.send(
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
        cwd: agent.sandbox.boxed ? agent.sandbox.boxCwd : run.repoRoot,
        contextHandoffDir: agent.sandbox.boxed ? agent.sandbox.boxContextHandoffDir : run.contextHandoffDir,
        sandbox: agent.sandbox.boxed ? agent.sandbox.sandbox : undefined,
        command: agent.config.command,
        env: agent.config.env,
        timeouts: agent.config.timeouts,
        signal: guard.signal,
        outputSchema: input.outputSchema,
        maxBudgetUsd: guard.maxBudgetUsd,
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
          // Redacted with its neighbours: a key split across two outputs is redacted in both. A result
          // that ends inside a word is traced once the next one (or the send's end) shows where it ends.
          outputs.push(call.result, (result) =>
            trace.event({
              type: "tool_call",
              name: call.name,
              phaseId: row.id,
              parentId: span.id,
              agent: name,
              ok: call.ok,
              startedAt: call.startedAt,
              endedAt: call.endedAt,
              payload: { tool: call.tool, args: call.args, result },
            }),
          );
          // The hooks judge host paths; the trace keeps what the agent saw.
          watch(
            agent.sandbox.boxed
              ? { ...call, args: hostPathsIn(call.args, run.repoRoot, run.contextHandoffDir) }
              : call,
          );
          run.reporter.toolCall(row, call);
        },
        onUsage(usage) {
          const priced = run.budget.price(usage, agent.config.model).usage;
          live.onUsage(priced);
          guard.onUsage(priced);
        },
        onText: live.onText,
        onToolStart: live.onToolStart,
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
  } finally {
    // A runtime that threw (against its contract) must not leave the budget timer running.
    guard.dispose();
    live.finish();
    outputs.flush();
  }
  run.sessions.recordSend(session, result.nativeSessionId);
  const priced = pricedUsage(context, result.usage, span.id);
  const usage = priced.usage;
  trace.addPhaseUsage(row, usage, result.contextTokens);
  trace.addSessionUsage(usage);
  const overrun = guard.close();
  const endedAt = new Date();
  const summary = {
    session_id: session.sessionId,
    attempt: input.attempt,
    reason: input.reason,
    model: agent.config.model,
    sandbox: sandboxTracePayload(agent.sandbox),
    usage: {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
      cost: usage.costUsd,
    },
    cost_source: priced.source,
    ...(priced.priceKey === undefined ? {} : { price: priced.priceKey, price_from: priced.priceFrom }),
    context_tokens: result.contextTokens,
    ...(result.ok ? {} : { error_kind: result.errorKind, error: result.error, exit_code: result.exitCode }),
    ...(overrun === null ? {} : { budget_exceeded: overrun.reason }),
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
  if (overrun !== null) throw overrunFailure(context, overrun, overrun.when);
  return { ...result, usage };
}
