/** Server-sent events as the model APIs send them: `event:` (optional) and one `data:` line per event. */
import type { ServerResponse } from "node:http";

/** Starts a 200 event stream. Never throws. */
export function openSse(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
}

/** Writes one event; `data` is JSON-encoded unless it is already a string (`[DONE]`). Never throws. */
export function writeSse(res: ServerResponse, data: unknown, event?: string): void {
  if (res.writableEnded || res.destroyed) return;
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
}

/** Ends the stream. Never throws. */
export function closeSse(res: ServerResponse): void {
  if (!res.writableEnded) res.end();
}

/**
 * Cuts `text` into deltas of at most `size` code points, so clients see a real multi-chunk stream.
 * An empty text gives no deltas. Never throws.
 */
export function splitDeltas(text: string, size = 32): string[] {
  const points = Array.from(text);
  const deltas: string[] = [];
  for (let start = 0; start < points.length; start += size)
    deltas.push(points.slice(start, start + size).join(""));
  return deltas;
}
