/**
 * opencode's `--format json`: each model response is a step (`step_start` … `step_finish`) holding its
 * `text` parts and `tool_use` parts (`part.tool`, `part.state.input`); `step_finish` carries its tokens
 * and why it stopped. A step that stopped for anything but tool calls ends the send.
 */

import {
  asRecord,
  type RecordedSend,
  type RecordedTurn,
  type StreamReader,
  tokens,
  usageOf,
} from "./recorded-turn.js";

export const opencodeStreamReader: StreamReader = {
  stream: "opencode json",
  recognises: (first) => first.type === "step_start" && typeof first.sessionID === "string",
  read(events) {
    const sends: RecordedSend[] = [];
    let send: RecordedSend | null = null;
    let turn: RecordedTurn | null = null;
    for (const event of events) {
      const part = asRecord(event.part);
      if (event.type === "step_start") {
        if (send === null) {
          send = { turns: [] };
          sends.push(send);
        }
        turn = { text: "", toolCalls: [], usage: null };
        send.turns.push(turn);
      } else if (turn !== null && event.type === "text" && typeof part.text === "string")
        turn.text += part.text;
      else if (turn !== null && event.type === "tool_use" && typeof part.tool === "string")
        turn.toolCalls.push({ name: part.tool, args: asRecord(asRecord(part.state).input) });
      else if (turn !== null && event.type === "step_finish") {
        const counts = asRecord(part.tokens);
        const cache = asRecord(counts.cache);
        turn.usage = usageOf({
          input: tokens(counts.input),
          output: tokens(counts.output),
          cacheRead: tokens(cache.read),
          cacheWrite: tokens(cache.write),
        });
        if (part.reason !== "tool-calls") send = null;
        turn = null;
      }
    }
    return { sends, notes: [] };
  },
};
