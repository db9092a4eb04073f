import { describe, expect } from "vitest";
import { GEMINI_TOOLS } from "./cli-requests.js";
import { decodeGemini } from "./decode-replies.js";
import { post, readSseJson, test } from "./fake-model-fixture.js";

const STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
const GENERATE = "/v1beta/models/gemini-2.5-flash:generateContent";

/** A gemini-cli-style request: system instruction, contents, function declarations. */
function geminiBody(contents: unknown[], tools: unknown[] | null = GEMINI_TOOLS) {
  return {
    contents,
    systemInstruction: { role: "user", parts: [{ text: "You are gemini." }] },
    ...(tools ? { tools } : {}),
    generationConfig: { temperature: 0 },
  };
}

const user = (text: string) => ({ role: "user", parts: [{ text }] });

describe("Gemini generateContent", () => {
  test("streams candidates over SSE; the last chunk carries finishReason and usageMetadata", async ({
    fake,
  }) => {
    fake.setScript({
      steps: [
        { reply: "hello from the fake gemini streaming api", usage: { input: 30, output: 6, cacheRead: 4 } },
      ],
    });
    const response = await post(fake, STREAM, geminiBody([user("TURN-1 hi")]));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const chunks = await readSseJson(response.clone());
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]).toMatchObject({
      candidates: [{ content: { role: "model" } }],
      modelVersion: "gemini-2.5-flash",
    });
    expect(chunks.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: {
        promptTokenCount: 34,
        candidatesTokenCount: 6,
        totalTokenCount: 40,
        cachedContentTokenCount: 4,
      },
    });
    expect((await decodeGemini(response)).text).toBe("hello from the fake gemini streaming api");
  });

  test("answers :generateContent in one object, and :countTokens", async ({ fake }) => {
    fake.setScript({ steps: [{ reply: "plain" }] });
    const reply = await decodeGemini(await post(fake, GENERATE, geminiBody([user("hi")])));
    expect(reply).toMatchObject({ text: "plain", usage: { candidatesTokenCount: 2 } });
    const count = await post(fake, "/v1beta/models/gemini-2.5-flash:countTokens", geminiBody([user("hi")]));
    expect(((await count.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
  });

  test("a functionCall, then the final text after a functionResponse", async ({ fake }) => {
    fake.setScript({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          tool: { name: "read_file", args: { absolute_path: "/w/a" } },
        },
        { match: { afterToolResult: true, model: "gemini-2.5-flash" }, reply: "done reading" },
      ],
    });
    const first = [user("TURN-1 read /w/a")];
    const call = await decodeGemini(await post(fake, STREAM, geminiBody(first)));
    expect(call.toolCalls).toEqual([{ name: "read_file", args: { absolute_path: "/w/a" } }]);
    const second = [
      ...first,
      { role: "model", parts: [{ functionCall: { name: "read_file", args: { absolute_path: "/w/a" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "hi" } } }] },
    ];
    expect(await decodeGemini(await post(fake, STREAM, geminiBody(second)))).toMatchObject({
      text: "done reading",
    });
  });

  test("writeFile uses gemini's write_file{file_path,content}", async ({ fake }) => {
    fake.setScript({ steps: [{ writeFile: { path: "/w/out.txt", content: "z" } }] });
    const reply = await decodeGemini(await post(fake, STREAM, geminiBody([user("write")])));
    expect(reply.toolCalls).toEqual([
      { name: "write_file", args: { file_path: "/w/out.txt", content: "z" } },
    ]);
  });

  test("markers echo across two turns, and the router's tool-less call is skipped by hasTools", async ({
    fake,
  }) => {
    fake.setScript({ steps: [{ match: { hasTools: true, text: "TURN-2" }, reply: "second turn" }] });
    const first = [user("TURN-1 hello")];
    const one = JSON.parse((await decodeGemini(await post(fake, STREAM, geminiBody(first)))).text);
    expect(one).toMatchObject({ api: "gemini", markers: ["TURN-1"], n_user: 1 });
    const second = [...first, { role: "model", parts: [{ text: "ok" }] }, user("TURN-2 again")];
    const router = await decodeGemini(
      await post(fake, "/v1beta/models/gemini-3.5-flash-lite:generateContent", geminiBody(second, null)),
    );
    expect(JSON.parse(router.text)).toMatchObject({ markers: ["TURN-1", "TURN-2"], n_user: 2 });
    expect(await decodeGemini(await post(fake, STREAM, geminiBody(second)))).toMatchObject({
      text: "second turn",
    });
  });

  test("an error step answers in Google's error shape", async ({ fake }) => {
    fake.setScript({ steps: [{ error: { status: 400, message: "bad thing TEST" } }] });
    const response = await post(fake, STREAM, geminiBody([user("hi")]));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 400, message: "bad thing TEST", status: "INVALID_ARGUMENT" },
    });
  });
});
