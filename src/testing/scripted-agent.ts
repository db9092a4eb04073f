#!/usr/bin/env node
/**
 * The scripted exec agent: a program speaking `sssf-exec/1` whose replies come from a script file
 * (argv[2], see ScriptedTurn). It behaves like a real agent CLI about sessions: a resumed session must
 * exist, a created one must not. Exit statuses: the turn's `exit_code`; 1 for a session mismatch; 2 for
 * a bad invocation; 3 when the script is exhausted.
 */

import { readFileSync } from "node:fs";
import { EXEC_PROTOCOL, type ExecRequest } from "../runtimes/exec/protocol.js";
import { playScriptedTurn } from "./play-scripted-turn.js";
import { claimTurn, recordSend, sessionExists, withScriptLock } from "./script-state.js";
import type { Script } from "./scripted-turn.js";

type Decision = "unknown_session" | "session_exists" | "exhausted" | number;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function fail(message: string, status: number): number {
  process.stderr.write(`scripted-agent: ${message}\n`);
  return status;
}

async function main(): Promise<number> {
  const scriptPath = process.argv[2];
  if (scriptPath === undefined) return fail("usage: scripted-agent <script.json>", 2);
  let script: Script;
  let request: ExecRequest;
  try {
    script = JSON.parse(readFileSync(scriptPath, "utf8")) as Script;
  } catch (error) {
    return fail(`cannot read script ${scriptPath}: ${(error as Error).message}`, 2);
  }
  try {
    request = JSON.parse(await readStdin()) as ExecRequest;
  } catch (error) {
    return fail(`stdin is not one JSON request: ${(error as Error).message}`, 2);
  }
  if (request.protocol !== EXEC_PROTOCOL) return fail(`expected protocol ${EXEC_PROTOCOL}`, 2);
  if (!/^[\w.-]+$/.test(request.session_id) || request.session_id.includes("..")) {
    return fail(`session_id ${JSON.stringify(request.session_id)} is not a safe file name`, 2);
  }

  const decision = withScriptLock(scriptPath, (): Decision => {
    const exists = sessionExists(request);
    if (request.resume !== exists) {
      recordSend(scriptPath, request, null);
      return exists ? "session_exists" : "unknown_session";
    }
    const turn = claimTurn(scriptPath, script, request.prompt, request.model, request.cwd);
    recordSend(scriptPath, request, turn);
    return turn ?? "exhausted";
  });

  if (decision === "unknown_session") {
    process.stdout.write(`${JSON.stringify({ type: "result", text: "", error: "unknown session" })}\n`);
    return fail(`cannot resume session ${request.session_id}: unknown session`, 1);
  }
  if (decision === "session_exists") {
    return fail(`session ${request.session_id} already exists; continue it with resume: true`, 1);
  }
  if (decision === "exhausted") return fail("script exhausted", 3);
  const turn = script.turns[decision];
  return turn === undefined ? fail("script exhausted", 3) : playScriptedTurn(turn, request);
}

// Setting exitCode instead of calling exit() lets piped stdout drain completely first.
main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.exitCode = fail(error instanceof Error ? (error.stack ?? error.message) : String(error), 2);
  },
);
