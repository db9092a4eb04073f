import http from "node:http";

/** What {@link rawRequest} got back. */
export interface RawResponse {
  status: number;
  type: string;
  body: string;
}

/** A request whose headers are sent exactly as given. */
export interface RawRequest {
  port: number;
  method?: string;
  path: string;
  /** Name/value pairs in order: duplicates allowed; no `Host` pair means none is sent. */
  headers: [string, string][];
  body?: string;
}

/**
 * Sends one request to 127.0.0.1 with `node:http`, which (unlike fetch) lets the test forge, repeat
 * or omit `Host`. A streaming answer (the live stream) is read only up to its headers.
 */
export function rawRequest(request: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: request.port,
        method: request.method ?? "GET",
        path: request.path,
        headers: request.headers.flat(),
        setHost: false,
        agent: false,
      },
      (res) => {
        const type = res.headers["content-type"] ?? "";
        const status = res.statusCode ?? 0;
        if (type.startsWith("text/event-stream")) {
          res.destroy();
          resolve({ status, type, body: "" });
          return;
        }
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status, type, body }));
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
}
