import { describe, expect } from "vitest";
import { OPENCODE_CHAT_TOOLS, PI_CHAT_TOOLS } from "./cli-requests.js";
import { decodeChat } from "./decode-replies.js";
import { post, readSse, test } from "./fake-model-fixture.js";

const PATH = "/v1/chat/completions";

/** A pi-style request: system prompt, the turns so far, streaming with the usage chunk. */
function chatBody(messages: unknown[], options: { stream?: boolean; tools?: unknown[] } = {}) {
  return {
    model: "fake-model",
    messages: [{ role: "system", content: "You are a test agent." }, ...messages],
    stream: options.stream ?? true,
    ...(options.stream === false ? {} : { stream_options: { include_usage: true } }),
    ...(options.tools ? { tools: options.tools } : {}),
  };
}

const user = (content: string) => ({ role: "user", content });

describe("OpenAI chat completions", () => {
  test("streams chunks, the usage chunk and [DONE]", async ({ fake }) => {
    fake.setScript({
      steps: [{ reply: "hello from the fake, in a few chunks", usage: { input: 40, output: 9 } }],
    });
    const response = await post(fake, PATH, chatBody([user("TURN-1 hi")]));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readSse(response);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
    expect(chunks[0]).toMatchObject({
      object: "chat.completion.chunk",
      choices: [{ delta: { role: "assistant" } }],
    });
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
    });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("hello from the fake, in a few chunks");
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
  });

  test("answers without streaming, and puts usage on the finish chunk when include_usage is off", async ({
    fake,
  }) => {
    fake.setScript({ steps: [{ reply: "plain", repeat: true }] });
    const plain = await post(fake, PATH, chatBody([user("hi")], { stream: false }));
    const body = (await plain.clone().json()) as { usage: { prompt_tokens: number } };
    expect(body).toMatchObject({ object: "chat.completion", choices: [{ finish_reason: "stop" }] });
    expect(await decodeChat(plain)).toMatchObject({ text: "plain", toolCalls: [] });
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);

    const noUsageChunk = await post(fake, PATH, { ...chatBody([user("hi")]), stream_options: undefined });
    const decoded = await decodeChat(noUsageChunk);
    expect(decoded.text).toBe("plain");
    expect(decoded.usage).toMatchObject({ completion_tokens: 2 });
  });

  test("a tool call, then the final text once the tool result comes back", async ({ fake }) => {
    fake.setScript({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          tool: { name: "read", args: { path: "a.txt" } },
        },
        { match: { afterToolResult: true }, reply: "read it" },
      ],
    });
    const first = [user("TURN-1 read a.txt")];
    const call = await decodeChat(await post(fake, PATH, chatBody(first, { tools: PI_CHAT_TOOLS })));
    expect(call.text).toBe("");
    expect(call.toolCalls).toEqual([{ id: expect.any(String), name: "read", args: { path: "a.txt" } }]);

    const second = [
      ...first,
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: call.toolCalls[0]?.id,
            type: "function",
            function: { name: "read", arguments: '{"path":"a.txt"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: call.toolCalls[0]?.id, content: "contents of a" },
    ];
    const final = await decodeChat(
      await post(fake, PATH, chatBody(second, { tools: PI_CHAT_TOOLS, stream: false })),
    );
    expect(final).toMatchObject({ text: "read it", toolCalls: [] });
    expect(fake.requests().map((request) => request.step)).toEqual([0, 1]);
  });

  test("writeFile uses pi's write{path,content} and opencode's write{filePath,content}", async ({ fake }) => {
    const step = { writeFile: { path: "out/note.md", content: "# note\n" }, repeat: true };
    fake.setScript({ steps: [step] });
    const pi = await decodeChat(await post(fake, PATH, chatBody([user("write")], { tools: PI_CHAT_TOOLS })));
    expect(pi.toolCalls).toMatchObject([
      { name: "write", args: { path: "out/note.md", content: "# note\n" } },
    ]);
    const opencode = await decodeChat(
      await post(fake, PATH, chatBody([user("write")], { tools: OPENCODE_CHAT_TOOLS })),
    );
    expect(opencode.toolCalls).toMatchObject([
      { name: "write", args: { filePath: "out/note.md", content: "# note\n" } },
    ]);
  });

  test("the default reply echoes every marker, so a second call proves the history was re-sent", async ({
    fake,
  }) => {
    const first = JSON.parse(
      (await decodeChat(await post(fake, PATH, chatBody([user("TURN-1 hello")])))).text,
    );
    expect(first).toEqual({
      fake: true,
      api: "openai-chat",
      markers: ["TURN-1"],
      n_user: 1,
      after_tool: false,
      last_user: "TURN-1 hello",
    });
    const history = [
      user("TURN-1 hello"),
      { role: "assistant", content: JSON.stringify(first) },
      user("TURN-2 again"),
    ];
    const second = JSON.parse((await decodeChat(await post(fake, PATH, chatBody(history)))).text);
    expect(second).toMatchObject({ markers: ["TURN-1", "TURN-2"], n_user: 2, last_user: "TURN-2 again" });
  });

  test("an error step answers with its status in OpenAI's error shape", async ({ fake }) => {
    fake.setScript({ steps: [{ error: { status: 429, message: "slow down" } }] });
    const response = await post(fake, PATH, chatBody([user("hi")]));
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({
      error: { message: "slow down", type: "rate_limit_error", param: null, code: null },
    });
  });
});
