import { describe, expect } from "vitest";
import { parseFakeScript } from "../../src/testing/fake-model/script-schema.js";
import type { FakeApi } from "../../src/testing/index.js";
import { post, test } from "./fake-model-fixture.js";

/** One minimal generation request per wire API. */
const REQUESTS: Record<FakeApi, { path: string; body: unknown }> = {
  "openai-chat": {
    path: "/v1/chat/completions",
    body: { model: "fake-model", messages: [{ role: "user", content: "hi" }], stream: true },
  },
  "openai-responses": {
    path: "/v1/responses",
    body: { model: "gpt-5-fake", input: [{ role: "user", content: "hi" }], stream: true },
  },
  anthropic: {
    path: "/v1/messages",
    body: { model: "claude-fake", messages: [{ role: "user", content: "hi" }], stream: true },
  },
  gemini: {
    path: "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse",
    body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  },
};

describe("scripted HTTP errors (httpError)", () => {
  test("answers the next `times` matching requests with the error, then the scripted turns continue", async ({
    fake,
  }) => {
    fake.setScript({
      steps: [
        { httpError: { status: 429, headers: { "retry-after": "2" } }, times: 2 },
        { reply: "after the limit" },
      ],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await post(fake, REQUESTS["openai-chat"].path, REQUESTS["openai-chat"].body);
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get("retry-after")).toBe("2");
      await response.text();
    }
    expect(statuses).toEqual([429, 429, 200]);
    expect(fake.requests().map((request) => [request.step, request.status])).toEqual([
      [0, 429],
      [0, 429],
      [1, 200],
    ]);
  });

  test("speaks each provider's shape: Anthropic rate_limit_error/overloaded_error, OpenAI rate_limit_exceeded/insufficient_quota, Google RESOURCE_EXHAUSTED", async ({
    fake,
  }) => {
    const seen: Record<string, unknown> = {};
    for (const api of Object.keys(REQUESTS) as FakeApi[]) {
      for (const [status, kind] of [
        [429, "rate_limit"],
        [429, "usage_limit"],
        [529, undefined],
      ] as const) {
        fake.setScript({ steps: [{ httpError: { status, ...(kind ? { kind } : {}) } }] });
        const response = await post(fake, REQUESTS[api].path, REQUESTS[api].body);
        expect(response.status).toBe(status);
        expect(response.headers.get("content-type")).toBe("application/json");
        seen[`${api} ${status} ${kind ?? "default"}`] = await response.json();
      }
    }
    expect(seen["anthropic 429 rate_limit"]).toMatchObject({
      type: "error",
      error: { type: "rate_limit_error" },
    });
    expect(seen["anthropic 529 default"]).toMatchObject({
      type: "error",
      error: { type: "overloaded_error" },
    });
    for (const api of ["openai-chat", "openai-responses"]) {
      expect(seen[`${api} 429 rate_limit`]).toMatchObject({ error: { code: "rate_limit_exceeded" } });
      expect(seen[`${api} 429 usage_limit`]).toMatchObject({
        error: { type: "insufficient_quota", code: "insufficient_quota" },
      });
    }
    expect(seen["gemini 429 rate_limit"]).toMatchObject({
      error: { code: 429, status: "RESOURCE_EXHAUSTED" },
    });
    expect(seen["gemini 529 default"]).toMatchObject({ error: { code: 529, status: "UNAVAILABLE" } });
  });

  test("sends a given body as is: JSON as JSON, text as text", async ({ fake }) => {
    fake.setScript({
      steps: [
        { httpError: { status: 429, body: { custom: true } } },
        {
          httpError: { status: 503, body: "upstream busy", headers: { "x-ratelimit-reset-requests": "1s" } },
        },
      ],
    });
    const json = await post(fake, REQUESTS.anthropic.path, REQUESTS.anthropic.body);
    expect(await json.json()).toEqual({ custom: true });
    const text = await post(fake, REQUESTS.anthropic.path, REQUESTS.anthropic.body);
    expect(text.status).toBe(503);
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(text.headers.get("x-ratelimit-reset-requests")).toBe("1s");
    expect(await text.text()).toBe("upstream busy");
  });

  test("the script schema names a misspelt or conflicting httpError field", () => {
    const bad = parseFakeScript({
      steps: [
        { httpError: { status: 429, header: {} } },
        { httpError: { status: 429 }, reply: "x" },
        { times: 0 },
      ],
    });
    expect(bad.ok).toBe(false);
    const paths = bad.ok ? [] : bad.problems.map((problem) => `${problem.path}: ${problem.message}`);
    expect(paths.some((line) => line.startsWith("steps[0].httpError.header: unknown key"))).toBe(true);
    expect(paths).toContain("steps[1].httpError: an httpError step cannot also reply, hang or give error");
    expect(paths.some((line) => line.startsWith("steps[2].times:"))).toBe(true);
  });
});
