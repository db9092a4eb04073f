import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { EngineerAnswer } from "../api/run-api.js";
import { DEFAULT_CONFIG_PATH } from "../config/config-schema.js";
import type { SssfConfig } from "../config/config-types.js";
import { SssfError } from "../errors/sssf-error.js";
import type { RunReporter } from "../session/reporter.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseRow } from "../trace/events.js";
import {
  type ApprovalRequest,
  answerFile,
  approvalsDir,
  readAnswer,
  removeQuietly,
  requestFile,
  writeRequest,
} from "./approval-files.js";
import { waitForFile } from "./approval-wait.js";

/** What one engineer phase needs to ask and wait. */
export interface AskContext {
  adwId: string;
  phase: PhaseRow;
  trace: SessionTrace;
  reporter: RunReporter;
  signal: AbortSignal;
  /** The session folder; requests and answers live in its `approvals/`. */
  sessionRoot: string;
  /** `--yes`: every question is approved at once. */
  yes: boolean;
  /** Flags `sssf approve` needs to find this session from where the run was started (may be ""). */
  commandFlags: string;
  /** The fallback poll of the wait, in milliseconds (default 1000). */
  pollMs?: number;
  /**
   * A second door for the answer (a cluster's durable promise, docs/cluster.md), raced with the
   * answer file: resolves with an answer given on another machine. Abandoned when `signal` aborts.
   */
  remoteAnswer?: (signal: AbortSignal) => Promise<EngineerAnswer>;
  /** Added to the `waiting for approval` event: how to answer from another machine. */
  answerVia?: Record<string, unknown>;
}

const SAFE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;

function shellWord(value: string): string {
  return SAFE_WORD.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * The flags that let `sssf approve` started in the run's working directory find the session: `--cwd`
 * when the run was started with another checkout, `--config` for a config file not at its default
 * place. Empty in the common case.
 */
export function approveCommandFlags(config: SssfConfig, checkoutRoot: string, cwd: string): string {
  const flags: string[] = [];
  if (path.resolve(cwd) !== path.resolve(checkoutRoot)) flags.push("--cwd", shellWord(checkoutRoot));
  if (config.file !== null && config.file !== path.join(checkoutRoot, DEFAULT_CONFIG_PATH))
    flags.push("--config", shellWord(config.file));
  return flags.length === 0 ? "" : ` ${flags.join(" ")}`;
}

function waitedText(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * Asks the engineer and waits for the answer. With `yes` it resolves at once as pre-approved by
 * `--yes`. Otherwise it writes the request file, tells the reporter what to run, waits for the answer
 * file `sssf approve`/`reject` writes, then removes both files. Traced as a `log` event when the wait
 * starts and one when it is answered (approved, reason, by, waited_ms). Rejects with
 * SssfError("interrupted") when `signal` aborts during the wait (after a `log` event saying so, with
 * the request file removed), and with SssfError("internal") when the answer file is not an answer.
 */
export async function askEngineer(
  context: AskContext,
  question: string,
  details: Record<string, unknown> = {},
): Promise<EngineerAnswer> {
  const { trace, reporter, phase, signal } = context;
  const text = question.trim();
  if (text === "") throw new SssfError("internal", `phase ${phase.name}: ask() needs a question`);
  if (signal.aborted) throw interrupted(signal, text, 0);
  if (context.yes) {
    const answer: EngineerAnswer = {
      approved: true,
      reason: "pre-approved with --yes",
      by: "--yes",
      at: new Date().toISOString(),
    };
    trace.event({
      type: "log",
      name: `approved by --yes: ${text}`,
      phaseId: phase.id,
      ok: true,
      payload: { question: text, details, ...answer, waited_ms: 0, shown: [`approved by --yes: ${text}`] },
    });
    reporter.log(`approved by --yes: ${text}`);
    return answer;
  }

  const dir = approvalsDir(context.sessionRoot);
  mkdirSync(dir, { recursive: true });
  const requestPath = requestFile(dir, phase.id);
  const answerPath = answerFile(dir, phase.id);
  // An answer left by a racing command for an earlier, interrupted wait must not answer this one.
  removeQuietly(answerPath);
  const asked = new Date();
  const request: ApprovalRequest = {
    adw_id: context.adwId,
    phase_id: phase.id,
    phase: phase.name,
    phase_number: phase.number,
    question: text,
    details,
    asked_at: asked.toISOString(),
    pid: process.pid,
    host: hostname(),
  };
  const approve = `sssf approve ${context.adwId}${context.commandFlags}`;
  const reject = `sssf reject ${context.adwId}${context.commandFlags} --reason "…"`;
  writeRequest(requestPath, request);
  const shown = [
    `waiting for the engineer: ${text}`,
    ...(Object.keys(details).length > 0 ? [`details: ${JSON.stringify(details)}`] : []),
    `approve: ${approve}`,
    `reject: ${reject}`,
  ];
  trace.event({
    type: "log",
    name: `waiting for approval: ${text}`,
    phaseId: phase.id,
    payload: {
      question: text,
      details,
      approve,
      reject,
      request_file: requestPath,
      asked_at: request.asked_at,
      ...context.answerVia,
      shown,
    },
  });
  for (const line of shown) reporter.log(line);

  // Whichever door answers first ends the wait at the other.
  const waiting = new AbortController();
  const stopWaiting = () => waiting.abort(signal.reason);
  signal.addEventListener("abort", stopWaiting, { once: true });
  try {
    const local = waitForFile(answerPath, {
      signal: waiting.signal,
      ...(context.pollMs === undefined ? {} : { pollMs: context.pollMs }),
    });
    // The other door closing (its wait abandoned, its network gone) never ends the wait: only an answer does.
    const remote = context.remoteAnswer?.(waiting.signal).then(
      (answer) => ({ remote: answer }),
      () => new Promise<never>(() => {}),
    );
    const outcome = remote === undefined ? await local : await Promise.race([local, remote]);
    waiting.abort("answered");
    const waitedMs = Date.now() - asked.getTime();
    if (outcome === "aborted") {
      const error = interrupted(signal, text, waitedMs);
      trace.event({
        type: "log",
        name: `stopped waiting for approval: ${error.message}`,
        phaseId: phase.id,
        ok: false,
        payload: { question: text, waited_ms: waitedMs, answered: false },
      });
      throw error;
    }
    let answer: EngineerAnswer;
    try {
      answer = typeof outcome === "object" ? outcome.remote : readAnswer(answerPath);
    } catch (error) {
      throw new SssfError("internal", (error as Error).message, { cause: error });
    }
    const verdict = answer.approved ? "approved" : "rejected";
    const because = answer.reason === "" ? "" : `: ${answer.reason}`;
    const line = `${verdict} by ${answer.by} after ${waitedText(waitedMs)}${because}`;
    trace.event({
      type: "log",
      name: `${verdict} by ${answer.by}${because}`,
      phaseId: phase.id,
      ok: answer.approved,
      payload: { question: text, ...answer, waited_ms: waitedMs, shown: [line] },
    });
    reporter.log(line);
    return answer;
  } finally {
    signal.removeEventListener("abort", stopWaiting);
    waiting.abort("done");
    // Once answered (or abandoned) nothing waits: a later `sssf approve` must say so.
    removeQuietly(requestPath);
    removeQuietly(answerPath);
  }
}

function interrupted(signal: AbortSignal, question: string, waitedMs: number): SssfError {
  const by = typeof signal.reason === "string" ? signal.reason : "abort";
  return new SssfError(
    "interrupted",
    `interrupted by ${by} while waiting for approval (${waitedText(waitedMs)}): ${question}`,
  );
}
