/**
 * pi's `--mode json` stream: a `session` line opens each send, every model response is a
 * `message_end` of role `assistant` whose content holds its text and `toolCall` parts (with their
 * arguments) and whose `usage` holds its tokens.
 */

import {
  asRecord,
  type RecordedSend,
  type RecordedTurn,
  type StreamReader,
  tokens,
  usageOf,
} from "./recorded-turn.js";

function turnOf(message: Record<string, unknown>): RecordedTurn {
  const parts = Array.isArray(message.content) ? message.content.map(asRecord) : [];
  const usage = asRecord(message.usage);
  return {
    text: parts
      .filter((part) => part.type === "text" && typeof part.text === "string")
      .map((part) => part.text as string)
      .join(""),
    toolCalls: parts
      .filter((part) => part.type === "toolCall" && typeof part.name === "string")
      .map((part) => ({ name: part.name as string, args: asRecord(part.arguments) })),
    usage: usageOf({
      input: tokens(usage.input),
      output: tokens(usage.output),
      cacheRead: tokens(usage.cacheRead),
      cacheWrite: tokens(usage.cacheWrite),
    }),
  };
}

export const piStreamReader: StreamReader = {
  stream: "pi --mode json",
  recognises: (first) => first.type === "session" && typeof first.version === "number",
  read(events) {
    const sends: RecordedSend[] = [];
    const notes: string[] = [];
    for (const event of events) {
      if (event.type === "session") sends.push({ turns: [] });
      if (event.type !== "message_end") continue;
      const message = asRecord(event.message);
      if (message.role !== "assistant") continue;
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        notes.push(
          `left out a failed model response (${String(message.errorMessage ?? message.stopReason)})`,
        );
        continue;
      }
      if (sends.length === 0) sends.push({ turns: [] });
      sends[sends.length - 1]?.turns.push(turnOf(message));
    }
    return { sends, notes };
  },
};
