import { describe, expect } from "vitest";
import { post, test } from "./fake-model-fixture.js";

const chat = (text: string) => ({ model: "fake-model", messages: [{ role: "user", content: text }] });

// The benchmarks read the fake's log for what a provider would see: bytes per request and the wait.
describe("the request log", () => {
  test("gives each request's body size in bytes as received, not in characters", async ({ fake }) => {
    const body = chat("TURN-1 café — 😀");
    await (await post(fake, "/v1/chat/completions", body)).text();
    const text = JSON.stringify(body);
    const [entry] = fake.requests();
    expect(entry?.bytes).toBe(Buffer.byteLength(text));
    expect(entry?.bytes).toBeGreaterThan(text.length);
    expect(entry?.body).toEqual(body);
  });

  test("says when the body was read, so time − received covers a step's delay", async ({ fake }) => {
    fake.setScript({ steps: [{ match: { text: "SLOW" }, delayMs: 300, reply: "late" }] });
    await (await post(fake, "/v1/chat/completions", chat("FAST"))).text();
    await (await post(fake, "/v1/chat/completions", chat("SLOW"))).text();
    const [fast, slow] = fake.requests();
    const waited = (entry: typeof fast) => Date.parse(entry?.time ?? "") - Date.parse(entry?.received ?? "");
    expect(fast?.step).toBe("default");
    expect(waited(fast)).toBeGreaterThanOrEqual(0);
    // Timers may fire a millisecond early on the clock the ISO stamps are cut from.
    expect(waited(slow)).toBeGreaterThanOrEqual(299);
  });
});
