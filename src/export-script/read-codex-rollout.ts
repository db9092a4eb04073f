/**
 * codex: its `exec --json` stream shows commands and file changes without the model's arguments (a
 * file change has paths, not contents), so the turns are read from the thread's rollout file under the
 * agent's `codex_sessions/` (`sessions/YYYY/MM/DD/rollout-…jsonl`), which records every response item:
 * `message` (assistant text), `function_call` (name, JSON arguments), `custom_tool_call` (codex's
 * `apply_patch`, raw input), then `token_count` events with each response's tokens. A `user_message`
 * opens a send; a call's output ends the response that made it.
 */

import { readdirSync } from "node:fs";
import path from "node:path";
import {
  argsOf,
  asRecord,
  type RecordedSend,
  type RecordedTurn,
  type StreamReader,
  tokens,
  usageOf,
} from "./recorded-turn.js";

/** Every `rollout-*.jsonl` under `dir`, sorted by name (their names start with their time). Never throws. */
export function rolloutFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((name) => /(^|[\\/])rollout-[^\\/]*\.jsonl$/.test(name))
      .sort((a, b) => path.basename(a).localeCompare(path.basename(b)))
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);

export const codexRolloutReader: StreamReader = {
  stream: "codex rollout",
  recognises: (first) => first.type === "thread.started",
  sessionFiles: rolloutFiles,
  read(events) {
    const sends: RecordedSend[] = [];
    const notes: string[] = [];
    let turn: RecordedTurn | null = null;
    const current = (): RecordedSend => {
      if (sends.length === 0) sends.push({ turns: [] });
      return sends[sends.length - 1] as RecordedSend;
    };
    const open = (): RecordedTurn => {
      if (turn === null) {
        turn = { text: "", toolCalls: [], usage: null };
        current().turns.push(turn);
      }
      return turn;
    };
    for (const event of events) {
      const payload = asRecord(event.payload);
      if (event.type === "event_msg" && payload.type === "user_message") {
        sends.push({ turns: [] });
        turn = null;
      } else if (event.type === "event_msg" && payload.type === "token_count") {
        const last = asRecord(asRecord(payload.info).last_token_usage);
        const target = turn ?? current().turns.at(-1);
        const cached = tokens(last.cached_input_tokens) ?? 0;
        if (target !== undefined && Object.keys(last).length > 0)
          target.usage = usageOf({
            input: Math.max(0, (tokens(last.input_tokens) ?? 0) - cached),
            output: tokens(last.output_tokens),
            cacheRead: cached,
          });
        turn = null;
      } else if (event.type !== "response_item") continue;
      else if (payload.type === "message" && payload.role === "assistant") {
        const parts = Array.isArray(payload.content) ? payload.content.map(asRecord) : [];
        open().text += parts.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
      } else if (payload.type === "function_call" && typeof payload.name === "string")
        open().toolCalls.push({ name: payload.name, args: argsOf(payload.arguments) });
      else if (payload.type === "custom_tool_call" && typeof payload.name === "string")
        open().toolCalls.push({ name: payload.name, args: { input: String(payload.input ?? "") } });
      else if (payload.type === "local_shell_call")
        notes.push("left out a local_shell_call (no fake-model step plays one)");
      else if (OUTPUTS.has(String(payload.type))) turn = null;
    }
    return { sends, notes };
  },
};
