import { describe, expect } from "vitest";
import { CLAUDE_TOOLS } from "./cli-requests.js";
import { decodeAnthropic } from "./decode-replies.js";
import { post, readSse, test } from "./fake-model-fixture.js";

const PATH = "/v1/messages?beta=true";
const HEADERS = { "x-api-key": "sk-ant-fake-0123456789", "anthropic-version": "2023-06-01" };

/** A claude-style request: system blocks, tools, streaming. */
function messagesBody(messages: unknown[], options: { stream?: boolean; tools?: unknown[] } = {}) {
  return {
    model: "claude-fake",
    max_tokens: 32000,
    system: [{ type: "text", text: "You are a Claude agent, built on Anthropic's Claude Agent SDK." }],
    messages,
    tools: options.tools ?? CLAUDE_TOOLS,
    stream: options.stream ?? true,
  };
}

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const send = (fake: Parameters<typeof post>[0], body: unknown) =>
  post(fake, PATH, body, { headers: HEADERS });

describe("Anthropic messages", () => {
  test("streams message_start … message_stop with text deltas and final usage", async ({ fake }) => {
    fake.setScript({
      steps: [
        {
          reply: "hello from the fake anthropic messages api",
          usage: { input: 70, output: 7, cacheRead: 5, cacheWrite: 3 },
        },
      ],
    });
    const response = await send(fake, messagesBody([user("TURN-1 hi")]));
    const events = await readSse(response.clone());
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const start = JSON.parse(events[0]?.data ?? "");
    expect(start.message).toMatchObject({
      role: "assistant",
      model: "claude-fake",
      content: [],
      stop_reason: null,
    });
    const delta = JSON.parse(events[6]?.data ?? "");
    expect(delta.delta.stop_reason).toBe("end_turn");
    expect(await decodeAnthropic(response)).toEqual({
      text: "hello from the fake anthropic messages api",
      toolCalls: [],
      usage: {
        input_tokens: 70,
        output_tokens: 7,
        cache_read_input_tokens: 5,
        cache_creation_input_tokens: 3,
      },
    });
  });

  test("answers without streaming, and counts tokens", async ({ fake }) => {
    fake.setScript({ steps: [{ reply: "plain" }] });
    const response = await send(fake, messagesBody([user("hi")], { stream: false }));
    const body = await response.clone().json();
    expect(body).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn" });
    expect(await decodeAnthropic(response)).toMatchObject({ text: "plain", usage: { output_tokens: 2 } });
    const count = await post(fake, "/v1/messages/count_tokens?beta=true", messagesBody([user("hi")]));
    expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(fake.requests().map((request) => [request.api, request.step])).toEqual([
      ["anthropic", 0],
      ["anthropic", null],
    ]);
  });

  test("a tool_use with input_json_delta, then the final text after tool_result", async ({ fake }) => {
    fake.setScript({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          reply: "Let me look.",
          tool: { name: "Read", args: { file_path: "/w/a.txt" } },
        },
        { match: { afterToolResult: true }, reply: "it says hi" },
      ],
    });
    const first = [user("TURN-1 read a.txt")];
    const call = await decodeAnthropic(await send(fake, messagesBody(first)));
    expect(call.text).toBe("Let me look.");
    expect(call.toolCalls).toEqual([
      { id: expect.stringMatching(/^toolu_/), name: "Read", args: { file_path: "/w/a.txt" } },
    ]);
    const id = call.toolCalls[0]?.id;
    const second = [
      ...first,
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id, name: "Read", input: { file_path: "/w/a.txt" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: id, content: "hi" },
          { type: "text", text: "<system-reminder>x</system-reminder>" },
        ],
      },
    ];
    expect(await decodeAnthropic(await send(fake, messagesBody(second)))).toMatchObject({
      text: "it says hi",
    });
  });

  test("writeFile uses claude's Write{file_path,content}", async ({ fake }) => {
    fake.setScript({ steps: [{ writeFile: { path: "/w/out.txt", content: "x\ny\n" } }] });
    const reply = await decodeAnthropic(await send(fake, messagesBody([user("write")])));
    expect(reply.toolCalls).toMatchObject([
      { name: "Write", args: { file_path: "/w/out.txt", content: "x\ny\n" } },
    ]);
  });

  test("accepts a system message inside messages, and echoes markers across two turns", async ({ fake }) => {
    const system = { role: "system", content: "Agents: none. Skills: none." };
    const first = [system, user("TURN-1 hello")];
    const one = JSON.parse((await decodeAnthropic(await send(fake, messagesBody(first)))).text);
    expect(one).toMatchObject({ api: "anthropic", markers: ["TURN-1"], n_user: 1, after_tool: false });
    const second = [
      ...first,
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
      system,
      user("TURN-2 more"),
    ];
    const two = JSON.parse((await decodeAnthropic(await send(fake, messagesBody(second)))).text);
    expect(two).toMatchObject({ markers: ["TURN-1", "TURN-2"], n_user: 2, last_user: "TURN-2 more" });
  });

  test("an error step answers in Anthropic's error shape, and the log keeps the headers truncated", async ({
    fake,
  }) => {
    fake.setScript({ steps: [{ error: { status: 529, message: "Overloaded" } }] });
    const response = await send(fake, messagesBody([user("hi")]));
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    expect(fake.requests()[0]).toMatchObject({
      path: PATH,
      headers: { "x-api-key": "sk-ant-fake-", "anthropic-version": "2023-06-01" },
      api: "anthropic",
      step: 0,
      status: 529,
    });
  });
});
