import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";

/** A 400 answered as `{"error": message}`: the message names the parameter or the body. */
export function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/**
 * Refuses a request body over `maxSize` bytes with a 400 naming the body (Hono's own limit answers
 * with an empty 413, which the API's error handler would turn into an empty 500).
 */
export function jsonBodyLimit(maxSize: number): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: (c) => c.json({ error: `body: expected at most ${maxSize} bytes of JSON` }, 400),
  });
}
