/**
 * The OpenTelemetry side of an export: a tracer provider with a batching OTLP/HTTP (JSON) exporter,
 * fed by a {@link SpanBuilder}. Only ever loaded with `import()` by `open-export.ts`, when an endpoint
 * is set: a run without one loads none of `@opentelemetry/*`.
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TraceRecord } from "../trace/events.js";
import { packageVersion } from "../util/package-root.js";
import { redactSecrets } from "../util/secrets/redact.js";
import type { OtlpTarget } from "./otlp-target.js";
import { SpanBuilder } from "./span-builder.js";

/** How long one export (its retries included) may take. */
const EXPORT_TIMEOUT_MS = 5000;
/** How long the end of a run waits for the last spans to leave. */
const SHUTDOWN_TIMEOUT_MS = 8000;
/**
 * Spans waiting to leave before new ones are dropped: a batch leaves as soon as 512 wait, but a slow
 * collector falls behind an agent flooding tool calls, and the SDK's default of 2048 would drop some.
 */
const MAX_QUEUED_SPANS = 16_384;

/** A run's (or a `db export`'s) spans on their way out. */
export interface SpanExport {
  /** Records in the order they were written; spans leave in batches. Never throws. */
  consume(records: readonly TraceRecord[]): void;
  /** Sends every span ended so far (`sssf db export` between runs). Never rejects. */
  flush(): Promise<void>;
  /** Ends what is open, sends what is left, and closes; resolves with the spans ended. Never rejects. */
  shutdown(): Promise<{ spans: number; failed: boolean }>;
}

/**
 * Wraps the exporter so a failed export is one warning line (the first only) and never an error of
 * the run; counts the failures.
 */
function warnOnce(inner: SpanExporter, target: OtlpTarget, warn: (line: string) => void) {
  const state = { failed: false };
  const exporter: SpanExporter = {
    export(spans, done) {
      inner.export(spans, (result) => {
        if (result.code !== 0 && !state.failed) {
          state.failed = true;
          const why = result.error?.message ?? "export failed";
          warn(
            redactSecrets(
              `sssf: warning: OpenTelemetry export to ${target.url} (${target.source}) failed: ${why.split("\n")[0]}; the run goes on without it`,
            ),
          );
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
  return { exporter, state };
}

/** Opens an export to `target`; `warn` gets the one line a failed export is worth. */
export function openSpanExport(target: OtlpTarget, warn: (line: string) => void): SpanExport {
  const { exporter, state } = warnOnce(
    new OTLPTraceExporter({ url: target.url, headers: target.headers, timeoutMillis: EXPORT_TIMEOUT_MS }),
    target,
    warn,
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || "sssf",
      [ATTR_SERVICE_VERSION]: packageVersion(),
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
        maxQueueSize: MAX_QUEUED_SPANS,
      }),
    ],
  });
  const builder = new SpanBuilder(provider.getTracer("sssf", packageVersion()));
  let closing: Promise<{ spans: number; failed: boolean }> | null = null;
  return {
    consume(records) {
      if (closing !== null) return;
      try {
        builder.consume(records);
      } catch (error) {
        // A mapping bug must not reach the tracer: the run goes on, its spans stop here.
        warn(`sssf: warning: OpenTelemetry export stopped: ${(error as Error).message}`);
        closing = Promise.resolve({ spans: builder.spans, failed: true });
      }
    },
    async flush() {
      try {
        await provider.forceFlush();
      } catch {
        // A failed export was told by the exporter's wrapper; the spans after it still go.
      }
    },
    shutdown() {
      closing ??= (async () => {
        builder.endOpen();
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
          timer.unref();
        });
        try {
          await Promise.race([provider.shutdown(), timeout]);
        } catch (error) {
          // The failed export that made the shutdown fail was told already.
          if (!state.failed) warn(`sssf: warning: OpenTelemetry export failed: ${(error as Error).message}`);
          state.failed = true;
        } finally {
          clearTimeout(timer);
        }
        return { spans: builder.spans, failed: state.failed };
      })();
      return closing;
    },
  };
}
