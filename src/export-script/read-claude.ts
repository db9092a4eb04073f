/**
 * Claude Code's `--output-format stream-json`: a `system`/`init` line opens each send; a model response
 * comes as one or more `assistant` lines sharing its `message.id`, one content block each (`text`,
 * `tool_use` with its `input`), its usage on every one. A `StructuredOutput` call (claude's
 * `--json-schema`) is the native structured answer.
 */

import {
  asRecord,
  type RecordedSend,
  type RecordedTurn,
  type StreamReader,
  tokens,
  usageOf,
} from "./recorded-turn.js";

const STRUCTURED_TOOL = "StructuredOutput";

export const claudeStreamReader: StreamReader = {
  stream: "claude stream-json",
  recognises: (first) => first.type === "system" && first.subtype === "init",
  read(events) {
    const sends: RecordedSend[] = [];
    const notes: string[] = [];
    let turn: RecordedTurn | null = null;
    let messageId: unknown = null;
    const current = (): RecordedSend => {
      if (sends.length === 0) sends.push({ turns: [] });
      return sends[sends.length - 1] as RecordedSend;
    };
    for (const event of events) {
      if (event.type === "system" && event.subtype === "init") {
        sends.push({ turns: [] });
        turn = null;
        continue;
      }
      if (event.type !== "assistant") {
        if (event.type === "user") turn = null;
        continue;
      }
      const message = asRecord(event.message);
      if (message.model === "<synthetic>") {
        // claude's own message (an API error shown as text), not the model's.
        notes.push("left out a message claude made up itself (<synthetic>)");
        continue;
      }
      if (turn === null || message.id === undefined || message.id !== messageId) {
        const usage = asRecord(message.usage);
        turn = {
          text: "",
          toolCalls: [],
          usage: usageOf({
            input: tokens(usage.input_tokens),
            output: tokens(usage.output_tokens),
            cacheRead: tokens(usage.cache_read_input_tokens),
            cacheWrite: tokens(usage.cache_creation_input_tokens),
          }),
        };
        messageId = message.id;
        current().turns.push(turn);
      }
      for (const block of Array.isArray(message.content) ? message.content.map(asRecord) : []) {
        if (block.type === "text" && typeof block.text === "string") turn.text += block.text;
        else if (block.type === "tool_use" && block.name === STRUCTURED_TOOL)
          turn.structured = asRecord(block.input);
        else if (block.type === "tool_use" && typeof block.name === "string")
          turn.toolCalls.push({ name: block.name, args: asRecord(block.input) });
      }
    }
    return { sends, notes };
  },
};
