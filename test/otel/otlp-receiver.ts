import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as the receiver got it, its attributes decoded from OTLP/JSON's typed values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  startMs: number;
  endMs: number;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number };
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function decodeValue(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  throw new Error(`an attribute value the receiver does not decode: ${JSON.stringify(value)}`);
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, decodeValue(entry.value)]));
}

const msOf = (nanos: string | number): number => Number(BigInt(nanos) / 1_000_000n);

/** What a test receiver does with a request: take it, or answer an error status. */
export type ReceiverMode = "accept" | 500;

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 that accepts the JSON encoding (the exporter sssf uses) at
 * `/v1/traces`, and keeps every span and every request's headers and raw body.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: {
    path: string;
    contentType: string;
    headers: IncomingMessage["headers"];
    body: string;
  }[] = [];
  mode: ReceiverMode = "accept";
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on("request", (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        receiver.requests.push({
          path: request.url ?? "",
          contentType: request.headers["content-type"] ?? "",
          headers: request.headers,
          body,
        });
        if (receiver.mode !== "accept") {
          response.writeHead(receiver.mode, { "content-type": "application/json" });
          response.end(JSON.stringify({ message: "the receiver refuses on purpose" }));
          return;
        }
        if (request.url !== "/v1/traces" || request.method !== "POST") {
          response.writeHead(404).end();
          return;
        }
        receiver.take(JSON.parse(body) as OtlpRequest);
        response.writeHead(200, { "content-type": "application/json" });
        response.end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  /** The base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT's form, without /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  private take(request: OtlpRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            startMs: msOf(span.startTimeUnixNano),
            endMs: msOf(span.endTimeUnixNano),
            statusCode: span.status?.code ?? 0,
            attributes: attributesOf(span.attributes),
            resource,
          });
    }
  }

  /** Forgets what it received. */
  clear(): void {
    this.spans.length = 0;
    this.requests.length = 0;
  }

  /** Stops listening: a later export finds nobody there. */
  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
