import { describe, expect } from "vitest";
import { parseFakeScript } from "../../src/testing/index.js";
import { CLAUDE_TOOLS, CODEX_TOOLS, codexInput } from "./cli-requests.js";
import { decodeAnthropic, decodeChat, decodeGemini, decodeResponses } from "./decode-replies.js";
import { post, test } from "./fake-model-fixture.js";

const ENVELOPE = { status: "success", summary: "structured" };
const LOOSE = {
  type: "object",
  properties: { status: { type: "string" }, summary: { type: "string" } },
  required: ["status"],
};
const STRICT = { ...LOOSE, required: ["status", "summary"], additionalProperties: false };

/** claude's StructuredOutput tool (`--json-schema`), as claude 2.1.332 offers it. */
const STRUCTURED_TOOL = {
  name: "StructuredOutput",
  description: "Use this tool to return your final response in the requested structured format.",
  input_schema: LOOSE,
};

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const anthropic = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: "claude-fake",
  max_tokens: 1000,
  messages,
  tools: [...CLAUDE_TOOLS, STRUCTURED_TOOL],
  stream: true,
  ...extra,
});
const responses = (prompt: string, format?: Record<string, unknown>) => ({
  model: "gpt-5.5",
  input: codexInput(prompt),
  tools: CODEX_TOOLS,
  stream: true,
  text: { verbosity: "low", ...(format ? { format } : {}) },
});
const codexFormat = (schema: unknown) => ({
  type: "json_schema",
  strict: true,
  schema,
  name: "codex_output_schema",
});

describe("native output schemas: Anthropic (claude's StructuredOutput tool, output_format)", () => {
  test("answers a structured step with a call of the StructuredOutput tool", async ({ fake }) => {
    fake.setScript({ steps: [{ match: { nativeSchema: true }, reply: "ignored", structured: ENVELOPE }] });
    const reply = await decodeAnthropic(
      await post(fake, "/v1/messages?beta=true", anthropic([user("TURN-1")])),
    );
    expect(reply.text).toBe("");
    expect(reply.toolCalls).toEqual([expect.objectContaining({ name: "StructuredOutput", args: ENVELOPE })]);
  });

  test("answers with the step's unconstrained reply, or the JSON as text, when the request has no schema", async ({
    fake,
  }) => {
    fake.setScript({
      steps: [
        { match: { text: "TURN-1" }, reply: 'Done. {"status": "succ', structured: ENVELOPE },
        { match: { text: "TURN-2" }, structured: ENVELOPE },
      ],
    });
    const plain = (text: string) => anthropic([user(text)], { tools: CLAUDE_TOOLS });
    const first = await decodeAnthropic(await post(fake, "/v1/messages", plain("TURN-1")));
    expect(first).toMatchObject({ text: 'Done. {"status": "succ', toolCalls: [] });
    const second = await decodeAnthropic(await post(fake, "/v1/messages", plain("TURN-2")));
    expect(JSON.parse(second.text)).toEqual(ENVELOPE);
  });

  test("answers an API output_format with the JSON as text", async ({ fake }) => {
    fake.setScript({ steps: [{ match: { nativeSchema: true }, structured: ENVELOPE }] });
    const body = anthropic([user("TURN-1")], {
      tools: CLAUDE_TOOLS,
      output_format: { type: "json_schema", schema: LOOSE },
    });
    const reply = await decodeAnthropic(await post(fake, "/v1/messages", body));
    expect(reply.toolCalls).toEqual([]);
    expect(JSON.parse(reply.text)).toEqual(ENVELOPE);
  });

  test("reads a prompt claude appends after a StructuredOutput result as user text", async ({ fake }) => {
    fake.setScript({
      steps: [
        { match: { text: "TURN-2", afterToolResult: false }, reply: "second turn" },
        { match: { afterToolResult: true }, reply: "after the tool" },
      ],
    });
    const call = { type: "tool_use", id: "toolu_1", name: "StructuredOutput", input: ENVELOPE };
    const result = (more: unknown[]) => ({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "Structured output provided successfully" },
        ...more,
      ],
    });
    const turn = (more: unknown[]) =>
      anthropic([user("TURN-1"), { role: "assistant", content: [call] }, result(more)]);
    const resumed = await decodeAnthropic(
      await post(fake, "/v1/messages", turn([{ type: "text", text: "TURN-2 go on" }])),
    );
    expect(resumed.text).toBe("second turn");
    // A system reminder alone after the result still ends the conversation with the tool result.
    const reminder = { type: "text", text: "<system-reminder>\nnote\n</system-reminder>" };
    expect((await decodeAnthropic(await post(fake, "/v1/messages", turn([reminder])))).text).toBe(
      "after the tool",
    );
  });

  test("matches nativeSchema against whether the request carries one", async ({ fake }) => {
    fake.setScript({
      steps: [
        { match: { nativeSchema: false }, reply: "no schema", repeat: true },
        { match: { nativeSchema: true }, reply: "schema", repeat: true },
      ],
    });
    const withSchema = await decodeAnthropic(await post(fake, "/v1/messages", anthropic([user("x")])));
    const without = await decodeAnthropic(
      await post(fake, "/v1/messages", anthropic([user("x")], { tools: CLAUDE_TOOLS })),
    );
    expect([withSchema.text, without.text]).toEqual(["schema", "no schema"]);
  });
});

describe("native output schemas: OpenAI Responses (codex's text.format)", () => {
  test("answers a strict json_schema format with the structured JSON as the message text", async ({
    fake,
  }) => {
    fake.setScript({
      steps: [{ match: { nativeSchema: true }, reply: "unconstrained", structured: ENVELOPE }],
    });
    const reply = await decodeResponses(
      await post(fake, "/v1/responses", responses("TURN-1", codexFormat(STRICT))),
    );
    expect(reply.toolCalls).toEqual([]);
    expect(JSON.parse(reply.text)).toEqual(ENVELOPE);
  });

  test("refuses a strict schema outside the strict subset with the API's 400, using up no step", async ({
    fake,
  }) => {
    fake.setScript({ steps: [{ structured: ENVELOPE }] });
    const open = await post(fake, "/v1/responses", responses("TURN-1", codexFormat(LOOSE)));
    expect(open.status).toBe(400);
    expect(await open.json()).toEqual({
      error: {
        message:
          "Invalid schema for response_format 'codex_output_schema': In context=(), 'additionalProperties' is required to be supplied and to be false.",
        type: "invalid_request_error",
        param: "text.format.schema",
        code: "invalid_json_schema",
      },
    });
    const nested = {
      ...STRICT,
      properties: {
        ...STRICT.properties,
        files: {
          type: "array",
          items: { type: "object", properties: { path: { type: "string" } }, additionalProperties: false },
        },
      },
      required: ["status", "summary", "files"],
    };
    const missing = await post(fake, "/v1/responses", responses("TURN-1", codexFormat(nested)));
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe(
      "Invalid schema for response_format 'codex_output_schema': In context=('properties', 'files', 'items'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'path'.",
    );
    const log = fake.requests();
    expect(log.map((entry) => [entry.status, entry.step])).toEqual([
      [400, null],
      [400, null],
    ]);
    // A non-strict format is only a hint: it is served, and the step is still there.
    const loose = await post(
      fake,
      "/v1/responses",
      responses("TURN-1", { ...codexFormat(LOOSE), strict: false }),
    );
    expect(JSON.parse((await decodeResponses(loose)).text)).toEqual(ENVELOPE);
  });
});

describe("native output schemas: chat completions and Gemini", () => {
  test("chat: response_format json_schema gets the JSON, a loose strict schema the API's 400", async ({
    fake,
  }) => {
    fake.setScript({ steps: [{ match: { nativeSchema: true }, structured: ENVELOPE }] });
    const chat = (schema: unknown) => ({
      model: "fake-model",
      messages: [{ role: "user", content: "TURN-1" }],
      stream: false,
      response_format: { type: "json_schema", json_schema: { name: "envelope", strict: true, schema } },
    });
    const refused = await post(fake, "/v1/chat/completions", chat(LOOSE));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { param: "response_format", code: "invalid_json_schema" },
    });
    const reply = await decodeChat(await post(fake, "/v1/chat/completions", chat(STRICT)));
    expect(JSON.parse(reply.text)).toEqual(ENVELOPE);
  });

  test("gemini: a response schema makes the request native; the JSON comes as text", async ({ fake }) => {
    fake.setScript({ steps: [{ match: { nativeSchema: true }, structured: ENVELOPE }] });
    const reply = await decodeGemini(
      await post(fake, "/v1beta/models/gemini-2.5-flash:generateContent", {
        contents: [{ role: "user", parts: [{ text: "TURN-1" }] }],
        generationConfig: { responseMimeType: "application/json", responseJsonSchema: LOOSE },
      }),
    );
    expect(JSON.parse(reply.text)).toEqual(ENVELOPE);
  });
});

describe("native output schemas: script checks", () => {
  test("structured goes with reply only", () => {
    const parsed = parseFakeScript({
      steps: [
        { structured: ENVELOPE, tool: { name: "Write", args: {} } },
        { structured: ENVELOPE, error: { status: 500, message: "x" } },
        { structured: "not an object" },
        { match: { nativeschema: true }, reply: "x" },
      ],
    });
    expect(parsed.ok).toBe(false);
    const paths = parsed.ok ? [] : parsed.problems.map((problem) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "steps[0].structured",
        "steps[1].error",
        "steps[2].structured",
        "steps[3].match.nativeschema",
      ]),
    );
  });
});
