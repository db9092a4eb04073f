import { request } from "node:http";
import { describe, expect } from "vitest";
import { parseFakeScript } from "../../src/testing/index.js";
import { decodeAnthropic, decodeChat } from "./decode-replies.js";
import { post, test } from "./fake-model-fixture.js";

const chat = (text: string, stream: boolean) => ({
  model: "fake-model",
  stream,
  ...(stream ? { stream_options: { include_usage: true } } : {}),
  messages: [{ role: "user", content: text }],
});
const anthropic = (text: string, stream: boolean) => ({
  model: "claude-fake",
  max_tokens: 100,
  stream,
  messages: [{ role: "user", content: text }],
});

/**
 * POSTs with node:http: `sent` resolves once the whole request is flushed to the socket, so a request
 * started after it reaches the server second; `answered` settles with the response's end or its error.
 */
function postRaw(url: string, body: unknown): { sent: Promise<void>; answered: Promise<string> } {
  let sent: () => void = () => {};
  const flushed = new Promise<void>((resolve) => {
    sent = resolve;
  });
  const answered = new Promise<string>((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => resolve(text));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify(body), () => sent());
  });
  answered.catch(() => {});
  return { sent: flushed, answered };
}

describe("delayMs steps", () => {
  test("hold the answer back while a concurrent request without a delay is answered", async ({ fake }) => {
    fake.setScript({
      steps: [
        // Far longer than the test: it is still pending when the fast one has been answered.
        { match: { text: "SLOW" }, delayMs: 600_000, reply: "slow" },
        { match: { text: "FAST" }, reply: "fast" },
      ],
    });
    let slowSettled = false;
    const slowPost = postRaw(`${fake.url}/v1/chat/completions`, chat("SLOW", true));
    const slow = slowPost.answered.finally(() => {
      slowSettled = true;
    });
    slow.catch(() => {});
    await slowPost.sent;
    const fast = await decodeChat(await post(fake, "/v1/chat/completions", chat("FAST", false)));
    expect(fast.text).toBe("fast");
    expect(slowSettled).toBe(false);
    // The log entry is written when the answer goes out: only the fast one is there.
    expect(fake.requests().map((entry) => [entry.step, entry.status])).toEqual([[1, 200]]);
    // Closing ends the wait (no timer outlives the server); the entry says nothing was sent.
    await fake.close();
    await expect(slow).rejects.toThrow();
    expect(fake.requests().map((entry) => [entry.step, entry.status])).toEqual([
      [1, 200],
      [0, null],
    ]);
  });

  test("then answer as the step says, streamed or not, reply, tool call or error", async ({ fake }) => {
    fake.setScript({
      steps: [
        { match: { text: "A" }, delayMs: 20, reply: "after a wait" },
        { match: { text: "B" }, delayMs: 20, reply: "calling", tool: { name: "write", args: { path: "x" } } },
        { match: { text: "C" }, delayMs: 20, error: { status: 529, message: "overloaded, later" } },
        { match: { text: "D" }, delayMs: 0, reply: "no wait at all" },
      ],
    });
    const streamed = await decodeChat(await post(fake, "/v1/chat/completions", chat("A", true)));
    expect(streamed.text).toBe("after a wait");
    const call = await decodeAnthropic(await post(fake, "/v1/messages", anthropic("B", false)));
    expect(call).toMatchObject({ text: "calling", toolCalls: [{ name: "write", args: { path: "x" } }] });
    const error = await post(fake, "/v1/messages", anthropic("C", true));
    expect(error.status).toBe(529);
    expect(JSON.stringify(await error.json())).toContain("overloaded, later");
    const none = await decodeChat(await post(fake, "/v1/chat/completions", chat("D", false)));
    expect(none.text).toBe("no wait at all");
    expect(fake.requests().map((entry) => [entry.step, entry.status])).toEqual([
      [0, 200],
      [1, 200],
      [2, 529],
      [3, 200],
    ]);
  });

  test("a step with only delayMs gives the default reply", async ({ fake }) => {
    fake.setScript({ steps: [{ delayMs: 5 }] });
    const reply = await decodeChat(await post(fake, "/v1/chat/completions", chat("TURN-1 hi", false)));
    expect(JSON.parse(reply.text)).toMatchObject({ fake: true, markers: ["TURN-1"] });
  });
});

describe("delayMs validation", () => {
  const problems = (step: unknown) => {
    const parsed = parseFakeScript({ steps: [{ reply: "ok" }, step] });
    return parsed.ok ? [] : parsed.problems.map((p) => `${p.path}: ${p.message}`);
  };

  test("accepts a non-negative integer of milliseconds", () => {
    expect(problems({ delayMs: 0 })).toEqual([]);
    expect(problems({ delayMs: 1500, writeFile: { path: "a", content: "b" } })).toEqual([]);
  });

  test("names the step's path for a negative, fractional or non-number delay", () => {
    const [negative] = problems({ delayMs: -1 });
    const [fraction] = problems({ delayMs: 2.5 });
    const [text] = problems({ delayMs: "100" });
    expect(negative).toMatch(/^steps\[1\]\.delayMs: .*-1/);
    expect(fraction).toMatch(/^steps\[1\]\.delayMs: .*2\.5/);
    expect(text).toMatch(/^steps\[1\]\.delayMs: expected a number, got "100"/);
  });

  test("refuses a delay on a hang step, and a misspelt key with a suggestion", () => {
    expect(problems({ hang: true, delayMs: 10 })).toEqual([
      "steps[1].delayMs: a hang step never answers, so it cannot delay its answer",
    ]);
    expect(problems({ delay_ms: 10 })).toEqual([expect.stringMatching(/^steps\[1\]\.delay_ms: unknown key/)]);
  });
});
