import type { OtlpConfig } from "../config/config-types.js";
import { SssfError } from "../errors/index.js";
import { registerSecretValues } from "../util/secrets/secret-values.js";

/** Where a run's spans go: the full traces URL, where it was named, and the headers of the config. */
export interface OtlpTarget {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  /** What named it: the environment variable or `observability.otlp.endpoint`. */
  source: string;
  /** `observability.otlp.headers` (the exporter adds `OTEL_EXPORTER_OTLP_HEADERS` itself). */
  headers: Record<string, string>;
}

const TRACES_PATH = "v1/traces";

/** `value` as an http(s) URL, or a config error naming `source`. */
function httpUrl(value: string, source: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new SssfError(
      "config_invalid",
      `${source}: expected an http:// or https:// URL such as http://localhost:4318, got ${JSON.stringify(value)}`,
    );
  return url;
}

/** A base endpoint with `v1/traces` appended, as the OTLP spec does for OTEL_EXPORTER_OTLP_ENDPOINT. */
function tracesUrl(base: URL): string {
  const href = base.href;
  if (href.replace(/\/+$/, "").endsWith(`/${TRACES_PATH}`)) return href;
  return `${href.endsWith("/") ? href : `${href}/`}${TRACES_PATH}`;
}

/**
 * Where this process exports runs, or null (export off): `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as
 * it is), else `OTEL_EXPORTER_OTLP_ENDPOINT`, else `observability.otlp.endpoint` (both with `/v1/traces`
 * added); `OTEL_SDK_DISABLED=true` turns it off. Loads nothing of OpenTelemetry. The headers' values
 * are registered as secrets, so no trace, log or span shows them. Throws SssfError("config_invalid")
 * naming the variable or field when the URL is not http(s).
 */
export function otlpTarget(
  config: OtlpConfig | null | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): OtlpTarget | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return null;
  const headers = { ...config?.headers };
  registerSecretValues(Object.values(headers));
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces)
    return {
      url: httpUrl(traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").href,
      source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      headers,
    };
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base)
    return {
      url: tracesUrl(httpUrl(base, "OTEL_EXPORTER_OTLP_ENDPOINT")),
      source: "OTEL_EXPORTER_OTLP_ENDPOINT",
      headers,
    };
  if (config === null || config === undefined) return null;
  const source = "observability.otlp.endpoint";
  return { url: tracesUrl(httpUrl(config.endpoint, source)), source, headers };
}
