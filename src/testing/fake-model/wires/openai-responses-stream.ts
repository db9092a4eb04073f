/**
 * The Responses event stream: `response.created`, `response.in_progress`, per output item its
 * `added` / delta / `done` events, then `response.completed` (codex's end-of-stream marker).
 */
import type { ServerResponse } from "node:http";
import { closeSse, openSse, splitDeltas, writeSse } from "../sse.js";
import type { FakeReply, RequestFacts } from "../wire-api.js";
import { responseItems, responseObject } from "./openai-responses-items.js";

/** Streams a complete reply as Responses events. Never throws. */
export function streamResponse(res: ServerResponse, request: RequestFacts, answer: FakeReply): void {
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    writeSse(res, { type, sequence_number: sequence++, ...fields }, type);
  openSse(res);
  send("response.created", { response: responseObject(request, answer, false) });
  send("response.in_progress", { response: responseObject(request, answer, false) });
  responseItems(answer).forEach((item, outputIndex) => {
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === "message") {
      const text = answer.text;
      const part = (value: string) => ({ type: "output_text", text: value, annotations: [] });
      send("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      send("response.content_part.added", { ...at, content_index: 0, part: part("") });
      for (const delta of splitDeltas(text))
        send("response.output_text.delta", { ...at, content_index: 0, delta });
      send("response.output_text.done", { ...at, content_index: 0, text });
      send("response.content_part.done", { ...at, content_index: 0, part: part(text) });
    } else if (item.type === "function_call") {
      const args = String(item.arguments);
      send("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of splitDeltas(args)) send("response.function_call_arguments.delta", { ...at, delta });
      send("response.function_call_arguments.done", { ...at, name: item.name, arguments: args });
    } else {
      const input = String(item.input);
      send("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", input: "" },
      });
      for (const delta of splitDeltas(input)) send("response.custom_tool_call_input.delta", { ...at, delta });
      send("response.custom_tool_call_input.done", { ...at, input });
    }
    send("response.output_item.done", { output_index: outputIndex, item });
  });
  send("response.completed", { response: responseObject(request, answer, true) });
  closeSse(res);
}
