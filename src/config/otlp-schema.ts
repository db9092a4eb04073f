import { z } from "zod";

/**
 * `observability.otlp:` on the wire — where each run's OpenTelemetry spans go (docs/observability.md).
 * Built on call, as the rest of the config schema is.
 */
export function otlpSectionSchema() {
  return z
    .object({
      endpoint: z
        .url({
          protocol: /^https?$/,
          error: (issue) =>
            `expected an http:// or https:// URL such as http://localhost:4318, got ${JSON.stringify(issue.input)}`,
        })
        .describe(
          "The OTLP/HTTP endpoint (http://localhost:4318; /v1/traces is added unless it is there). OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and OTEL_EXPORTER_OTLP_ENDPOINT win over it.",
        ),
      headers: z
        .record(
          z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: "expected an HTTP header name" }),
          z.string(),
        )
        .default({})
        .describe(
          "HTTP headers sent with every export (Authorization for Langfuse, DD-API-KEY…); their values are redacted wherever sssf writes text.",
        ),
    })
    .strict()
    .optional()
    .describe(
      "Export each run as OpenTelemetry spans over OTLP/HTTP (docs/observability.md). Off when absent.",
    );
}
