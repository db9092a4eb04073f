/** Responses output items and the `response` object, shared by the JSON and the streamed answers. */
import type { FakeReply, RequestFacts } from "../wire-api.js";

/** A Responses output item. */
export type ResponseItem = Record<string, unknown> & { type: string; id: string };

/** The output items of a reply: the text message first, then the tool call. Never throws. */
export function responseItems(answer: FakeReply): ResponseItem[] {
  const items: ResponseItem[] = [];
  const call = answer.toolCall;
  // An empty reply still needs one message, or the client sees a turn with no output at all.
  if (answer.text || !call)
    items.push({
      id: `msg_fake_${answer.seq}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: answer.text, annotations: [] }],
    });
  const callId = `call_fake_${answer.seq}`;
  if (call?.freeform)
    items.push({
      id: `ctc_fake_${answer.seq}`,
      type: "custom_tool_call",
      status: "completed",
      call_id: callId,
      name: call.name,
      input: call.input,
    });
  else if (call)
    items.push({
      id: `fc_fake_${answer.seq}`,
      type: "function_call",
      status: "completed",
      call_id: callId,
      name: call.name,
      arguments: JSON.stringify(call.args),
    });
  return items;
}

/** The `response` object, in progress (no output, no usage) or completed. Never throws. */
export function responseObject(request: RequestFacts, answer: FakeReply, completed: boolean) {
  const { input, output, cacheRead, cacheWrite } = answer.usage;
  const inputTokens = input + cacheRead + cacheWrite;
  return {
    id: `resp_fake_${answer.seq}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: completed ? "completed" : "in_progress",
    error: null,
    incomplete_details: null,
    model: request.model,
    output: completed ? responseItems(answer) : [],
    usage: completed
      ? {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: cacheRead },
          output_tokens: output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + output,
        }
      : null,
  };
}
