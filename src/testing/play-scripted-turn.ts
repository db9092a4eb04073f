/**
 * Plays one scripted turn on stdout/stderr as `sssf-exec/1` lines, really performing its file
 * actions. Used only by the scripted agent program.
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type {
  ExecRequest,
  ExecResultLine,
  ExecToolCallLine,
  ExecUsageLine,
} from "../runtimes/exec/protocol.js";
import type { ScriptedToolCall, ScriptedTurn } from "./scripted-turn.js";

/** Bytes per noise line, newline included. */
export const NOISE_LINE_BYTES = 100;
const PROSE = "The factory hums along while the scripted agent pads its answer with calm prose. ";

const emit = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

function playToolCall(call: ScriptedToolCall, cwd: string): void {
  const startedAt = Date.now();
  let defaultArgs: unknown = {};
  let defaultResult = "";
  let defaultOk = true;
  if (call.write_file !== undefined) {
    const path = resolve(cwd, call.write_file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, call.write_file.content);
    defaultArgs = { path: call.write_file.path };
    defaultResult = `wrote ${Buffer.byteLength(call.write_file.content)} bytes`;
  }
  if (call.delete_file !== undefined) {
    rmSync(resolve(cwd, call.delete_file), { force: true });
    defaultArgs = { path: call.delete_file };
    defaultResult = "deleted";
  }
  if (call.rename_file !== undefined) {
    const to = resolve(cwd, call.rename_file.to);
    mkdirSync(dirname(to), { recursive: true });
    renameSync(resolve(cwd, call.rename_file.from), to);
    defaultArgs = { from: call.rename_file.from, to: call.rename_file.to };
    defaultResult = "renamed";
  }
  if (call.bash !== undefined) {
    const run = spawnSync("/bin/sh", ["-c", call.bash], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    defaultArgs = { command: call.bash };
    defaultResult = run.stdout ?? "";
    defaultOk = run.status === 0;
  }
  // A scripted duration is how long the tool takes: spend it, so every timestamp is real.
  const remaining = (call.duration_ms ?? 0) - (Date.now() - startedAt);
  if (remaining > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, remaining);
  const endedAt = Date.now();
  const line: ExecToolCallLine = {
    type: "tool_call",
    tool: call.tool,
    args: call.args ?? defaultArgs,
    result: call.result ?? defaultResult,
    ok: call.ok ?? defaultOk,
    duration_ms: endedAt - startedAt,
    started_at: new Date(startedAt).toISOString(),
    ended_at: new Date(endedAt).toISOString(),
  };
  if (call.name !== undefined) line.name = call.name;
  emit(line);
}

function emitNoise(totalBytes: number): void {
  let batch: string[] = [];
  let index = 0;
  for (let remaining = totalBytes; remaining > 1; remaining -= NOISE_LINE_BYTES) {
    const length = Math.min(NOISE_LINE_BYTES, remaining) - 1;
    batch.push(`noise ${index++} `.padEnd(length, "x").slice(0, length));
    if (batch.length === 1000) {
      process.stdout.write(`${batch.join("\n")}\n`);
      batch = [];
    }
  }
  if (batch.length > 0) process.stdout.write(`${batch.join("\n")}\n`);
}

function startGrandchild(sessionDir: string): void {
  // Not detached: the grandchild joins the agent's process group, like a background job would.
  const child = spawn(process.execPath, ["-e", "setInterval(()=>{},1000)"], { stdio: "ignore" });
  child.unref();
  mkdirSync(sessionDir, { recursive: true });
  writeFileSync(join(sessionDir, "grandchild.pid"), String(child.pid));
}

/** Plays `turn` for `request`; resolves to the exit status (never resolves when the turn hangs). */
export async function playScriptedTurn(turn: ScriptedTurn, request: ExecRequest): Promise<number> {
  if (turn.ignore_sigterm) process.on("SIGTERM", () => {});
  if (turn.stderr !== undefined) process.stderr.write(turn.stderr);
  if (turn.spawn_grandchild) startGrandchild(request.session_dir);
  if (turn.delay_ms !== undefined && turn.delay_ms > 0) await sleep(turn.delay_ms);
  for (const call of turn.tool_calls ?? []) playToolCall(call, request.cwd);
  if (turn.hang) {
    setInterval(() => {}, 60_000);
    return new Promise<number>(() => {});
  }
  if (turn.usage !== undefined) {
    const usage: ExecUsageLine = {
      type: "usage",
      input_tokens: turn.usage.input_tokens ?? 0,
      output_tokens: turn.usage.output_tokens ?? 0,
      cache_read_tokens: turn.usage.cache_read_tokens ?? 0,
      cache_write_tokens: turn.usage.cache_write_tokens ?? 0,
      cost: turn.usage.cost ?? 0,
    };
    if (turn.usage.context_tokens !== undefined) usage.context_tokens = turn.usage.context_tokens;
    emit(usage);
  }
  if (turn.output_bytes !== undefined) emitNoise(turn.output_bytes);
  if (!turn.no_result) {
    const padding = turn.result_padding_bytes ?? 0;
    const prose = padding > 0 ? PROSE.repeat(Math.ceil(padding / PROSE.length)).slice(0, padding) : "";
    const result: ExecResultLine = { type: "result", text: `${prose}${turn.reply ?? ""}` };
    if (turn.error !== undefined) {
      result.error = turn.error.message;
      if (turn.error.kind !== undefined) result.error_kind = turn.error.kind;
      if (turn.error.retry_after_ms !== undefined) result.retry_after_ms = turn.error.retry_after_ms;
      if (turn.error.resets_at !== undefined) result.resets_at = turn.error.resets_at;
    }
    emit(result);
  }
  return turn.exit_code ?? 0;
}
