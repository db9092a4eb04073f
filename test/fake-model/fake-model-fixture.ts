import { test as base } from "vitest";
import { createFakeModelServer, type FakeModelServer } from "../../src/testing/index.js";

/** `test` with a fresh fake model server per test, closed afterwards. */
export const test = base.extend<{ fake: FakeModelServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads fixture dependencies from this pattern.
  fake: async ({}, use) => {
    const fake = await createFakeModelServer();
    await use(fake);
    await fake.close();
  },
});

/** POSTs JSON to the fake. */
export function post(
  fake: FakeModelServer,
  path: string,
  body: unknown,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    ...init,
    method: "POST",
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
    body: JSON.stringify(body),
  });
}

/** One server-sent event. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Reads a whole event stream into its events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event: SseEvent = { data: "" };
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event: ")) event.event = line.slice(7);
        else if (line.startsWith("data: ")) event.data += line.slice(6);
      }
      return event;
    });
}

/** The JSON payloads of a stream (the `[DONE]` marker excluded). */
export async function readSseJson(response: Response): Promise<Record<string, unknown>[]> {
  const events = await readSse(response);
  return events.filter((event) => event.data !== "[DONE]").map((event) => JSON.parse(event.data));
}

/** A reply decoded back from any of the wire APIs. */
export interface DecodedReply {
  text: string;
  toolCalls: { id?: string; name: string; args?: Record<string, unknown>; input?: string; type?: string }[];
  usage: Record<string, unknown>;
}
