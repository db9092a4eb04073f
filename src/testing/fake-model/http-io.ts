/** Plain request and response helpers shared by the routes. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Writes a JSON body with a status. Does nothing on a response that is already over. Never throws. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** The whole request body as text. Rejects only if the connection fails mid-body. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The body as JSON, the raw text when it is not JSON, or null when empty. Never throws. */
export function parseBody(text: string): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
