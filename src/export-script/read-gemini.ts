/**
 * Gemini CLI's `--output-format stream-json`: an `init` line opens each send; assistant `message`
 * lines carry the text (whole, or `delta` pieces), each `tool_use` (`tool_name`, `parameters`) ends a
 * model response, and the closing `result` carries the send's tokens only (kept on its last response).
 */

import {
  asRecord,
  type RecordedSend,
  type RecordedTurn,
  type StreamReader,
  tokens,
  usageOf,
} from "./recorded-turn.js";

export const geminiStreamReader: StreamReader = {
  stream: "gemini stream-json",
  recognises: (first) => first.type === "init" && typeof first.session_id === "string",
  read(events) {
    const sends: RecordedSend[] = [];
    let turn: RecordedTurn | null = null;
    let afterTool = false;
    const current = (): RecordedSend => {
      if (sends.length === 0) sends.push({ turns: [] });
      return sends[sends.length - 1] as RecordedSend;
    };
    const open = (): RecordedTurn => {
      if (turn === null || afterTool) {
        turn = { text: "", toolCalls: [], usage: null };
        afterTool = false;
        current().turns.push(turn);
      }
      return turn;
    };
    for (const event of events) {
      if (event.type === "init") {
        sends.push({ turns: [] });
        turn = null;
      } else if (
        event.type === "message" &&
        event.role === "assistant" &&
        typeof event.content === "string"
      ) {
        const into = open();
        into.text = event.delta === true ? into.text + event.content : event.content;
      } else if (event.type === "tool_use" && typeof event.tool_name === "string") {
        // Calls made together belong to one response, until a result comes back.
        open().toolCalls.push({ name: event.tool_name, args: asRecord(event.parameters) });
      } else if (event.type === "tool_result") afterTool = true;
      else if (event.type === "result") {
        const stats = asRecord(event.stats);
        const last = current().turns.at(-1);
        if (last !== undefined)
          last.usage = usageOf({
            input:
              tokens(stats.input) ??
              Math.max(0, (tokens(stats.input_tokens) ?? 0) - (tokens(stats.cached) ?? 0)),
            output: tokens(stats.output_tokens),
            cacheRead: tokens(stats.cached),
          });
      }
    }
    return {
      sends,
      notes: ["gemini reports tokens per send, not per response: each send's are kept on its last response"],
    };
  },
};
