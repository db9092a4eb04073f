import type { LiveSubscription } from "./api-types.js";
import type { LiveClient, LiveHub } from "./live-hub.js";

/** Bytes a slow client may have queued before it is dropped (it reconnects and reloads). */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * A `text/event-stream` response registered with `hub` for `subscription`, ending when the request
 * is aborted or the hub closes. Contract: never throws; an enqueue on a finished stream is ignored.
 */
export function sseResponse(hub: LiveHub, subscription: LiveSubscription, signal: AbortSignal): Response {
  const encoder = new TextEncoder();
  let client: LiveClient | null = null;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let open = true;
        const finish = () => {
          if (!open) return;
          open = false;
          if (client !== null) hub.remove(client);
          try {
            controller.close();
          } catch {
            // Already closed by the consumer.
          }
        };
        client = {
          subscription,
          send(text) {
            if (!open) return false;
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              return false;
            }
            return (controller.desiredSize ?? 0) > 0;
          },
          close: finish,
        };
        signal.addEventListener("abort", finish, { once: true });
        // Sets the retry delay of the browser's reconnects; then the hub's hello.
        controller.enqueue(encoder.encode("retry: 1000\n\n"));
        hub.add(client);
      },
      cancel() {
        if (client !== null) {
          hub.remove(client);
          client = null;
        }
      },
    },
    { highWaterMark: MAX_QUEUED_BYTES, size: (chunk) => chunk.byteLength },
  );
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}
