import { describe, expect } from "vitest";
import type { FakeApi } from "../../src/testing/index.js";
import { OPENCODE_CHAT_TOOLS } from "./cli-requests.js";
import { decodeAnthropic, decodeChat, decodeGemini, decodeResponses } from "./decode-replies.js";
import { type DecodedReply, post, test } from "./fake-model-fixture.js";

/** One minimal request per wire API, carrying `text` as the last user message. */
const APIS: Record<
  FakeApi,
  { path: string; body: (text: string) => unknown; decode: (r: Response) => Promise<DecodedReply> }
> = {
  "openai-chat": {
    path: "/v1/chat/completions",
    body: (text) => ({ model: "fake-model", messages: [{ role: "user", content: text }], stream: true }),
    decode: decodeChat,
  },
  "openai-responses": {
    path: "/v1/responses",
    body: (text) => ({ model: "gpt-5.5", input: [{ role: "user", content: text }], stream: true }),
    decode: decodeResponses,
  },
  anthropic: {
    path: "/v1/messages",
    body: (text) => ({ model: "claude-fake", messages: [{ role: "user", content: text }], stream: true }),
    decode: decodeAnthropic,
  },
  gemini: {
    path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    body: (text) => ({ contents: [{ role: "user", parts: [{ text }] }] }),
    decode: decodeGemini,
  },
};
const API_IDS = Object.keys(APIS) as FakeApi[];

const chat = (text: string, tools?: unknown[]) => ({
  model: "fake-model",
  messages: [{ role: "user", content: text }],
  stream: false,
  ...(tools ? { tools } : {}),
});

describe("script selection", () => {
  test("hasTools keeps a tool-less side request (opencode's title call) from taking the step", async ({
    fake,
  }) => {
    fake.setScript({ steps: [{ match: { hasTools: true }, reply: "the real answer" }] });
    const title = await decodeChat(
      await post(fake, APIS["openai-chat"].path, chat("Generate a title for: TURN-1 fix it")),
    );
    expect(JSON.parse(title.text)).toMatchObject({ fake: true, markers: ["TURN-1"] });
    const turn = await decodeChat(
      await post(fake, APIS["openai-chat"].path, chat("TURN-1 fix it", OPENCODE_CHAT_TOOLS)),
    );
    expect(turn.text).toBe("the real answer");
    expect(fake.requests().map((request) => request.step)).toEqual(["default", 0]);
  });

  test("steps are consumed unless they repeat, and match on api and model", async ({ fake }) => {
    fake.setScript({
      steps: [
        { match: { api: "anthropic" }, reply: "anthropic once" },
        { match: { model: "gpt-5.5" }, reply: "responses always", repeat: true },
      ],
    });
    const ask = async (api: FakeApi) =>
      (await APIS[api].decode(await post(fake, APIS[api].path, APIS[api].body("x")))).text;
    expect(await ask("anthropic")).toBe("anthropic once");
    expect(JSON.parse(await ask("anthropic")).api).toBe("anthropic");
    expect(await ask("openai-responses")).toBe("responses always");
    expect(await ask("openai-responses")).toBe("responses always");
  });

  test("anywhere matches the whole body (a system prompt naming a worktree), whatever the API", async ({
    fake,
  }) => {
    const withSystem = (api: FakeApi, cwd: string): unknown => {
      const system = `Current working directory: /sssf/work/${cwd}`;
      const body = APIS[api].body("same request") as Record<string, unknown>;
      if (api === "anthropic") return { ...body, system };
      if (api === "gemini") return { ...body, systemInstruction: { parts: [{ text: system }] } };
      if (api === "openai-responses") return { ...body, instructions: system };
      return { ...body, messages: [{ role: "system", content: system }, ...(body.messages as unknown[])] };
    };
    for (const api of API_IDS) {
      fake.setScript({
        steps: [
          { match: { anywhere: "build-attempt-2" }, reply: "second attempt" },
          { match: { anywhere: "build-attempt-1" }, reply: "first attempt" },
        ],
        fallback: "error",
      });
      const ask = async (cwd: string) =>
        (await APIS[api].decode(await post(fake, APIS[api].path, withSystem(api, cwd)))).text;
      // Another attempt's requests take neither step (the script falls back to an error).
      const other = await post(fake, APIS[api].path, withSystem(api, "build-attempt-3"));
      expect(other.status).toBeGreaterThanOrEqual(400);
      expect(await ask("build-attempt-1")).toBe("first attempt");
      expect(await ask("build-attempt-2")).toBe("second attempt");
    }
  });

  test("every API replies, reports usage, and echoes by default", async ({ fake }) => {
    for (const api of API_IDS) {
      const reply = await APIS[api].decode(await post(fake, APIS[api].path, APIS[api].body("TURN-7 ping")));
      expect(JSON.parse(reply.text)).toMatchObject({
        api,
        markers: ["TURN-7"],
        n_user: 1,
        last_user: "TURN-7 ping",
      });
      expect(Object.values(reply.usage).some((value) => typeof value === "number" && value > 0)).toBe(true);
    }
  });

  test("a hang step holds the request open; the server keeps serving after the client aborts", async ({
    fake,
  }) => {
    fake.setScript({ steps: API_IDS.map((api) => ({ match: { api, text: "stall" }, hang: true })) });
    const outcomes = await Promise.allSettled(
      API_IDS.map((api) =>
        post(fake, APIS[api].path, APIS[api].body("stall"), { signal: AbortSignal.timeout(300) }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "rejected",
      "rejected",
      "rejected",
      "rejected",
    ]);
    for (const api of API_IDS) {
      const reply = await APIS[api].decode(await post(fake, APIS[api].path, APIS[api].body("stall")));
      expect(JSON.parse(reply.text)).toMatchObject({ api, last_user: "stall" });
    }
    expect(fake.requests().filter((request) => request.status === null)).toHaveLength(4);
  });

  test("hang(true) holds every model request until hang(false)", async ({ fake }) => {
    fake.hang(true);
    const held = post(fake, APIS.anthropic.path, APIS.anthropic.body("x"), {
      signal: AbortSignal.timeout(300),
    });
    await expect(held).rejects.toThrow();
    fake.hang(false);
    expect((await post(fake, APIS.anthropic.path, APIS.anthropic.body("x"))).status).toBe(200);
    expect(fake.requests().map((request) => [request.step, request.status])).toEqual([
      [null, null],
      ["default", 200],
    ]);
  });

  test("fallback error answers 500 when nothing matches", async ({ fake }) => {
    fake.setScript({ steps: [{ match: { text: "never" }, reply: "no" }], fallback: "error" });
    const response = await post(fake, APIS["openai-chat"].path, chat("hello"));
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      error: { message: "fake model: no scripted step matches this request", type: "server_error" },
    });
  });

  test("after a tool result with no matching step, the default is a short final text", async ({ fake }) => {
    const body = {
      model: "fake-model",
      messages: [
        { role: "user", content: "TURN-1" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "ok" },
      ],
    };
    const reply = await decodeChat(await post(fake, APIS["openai-chat"].path, body));
    expect(reply).toMatchObject({ text: "fake model: tool result received; done.", toolCalls: [] });
  });

  test("writeFile without any write tool explains itself in text", async ({ fake }) => {
    fake.setScript({ steps: [{ writeFile: { path: "a.txt", content: "x" } }] });
    const tools = [
      {
        type: "function",
        function: { name: "read", parameters: { type: "object", properties: { path: {} } } },
      },
    ];
    const reply = await decodeChat(await post(fake, APIS["openai-chat"].path, chat("w", tools)));
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toBe("fake model: cannot write a.txt: no write, shell or apply_patch tool among read");
  });

  test("enqueue appends, reset un-consumes and clears the log, invalid scripts name the field", async ({
    fake,
  }) => {
    fake.enqueue({ reply: "one" }, { reply: "two" });
    const ask = async () => (await decodeChat(await post(fake, APIS["openai-chat"].path, chat("x")))).text;
    expect([await ask(), await ask()]).toEqual(["one", "two"]);
    fake.reset();
    expect(fake.requests()).toEqual([]);
    expect(await ask()).toBe("one");
    expect(() => fake.setScript({ steps: [{ match: { txt: "x" } } as never] })).toThrow(
      /steps\[0\]\.match\.txt: unknown key \(did you mean "text"\?\)/,
    );
    expect(() => fake.enqueue({ error: { status: 500, message: "x" }, reply: "y" })).toThrow(
      /\[0\]\.error: an error step/,
    );
  });
});
