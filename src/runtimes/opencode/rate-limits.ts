/**
 * opencode's rate-limit and usage-limit failures. opencode retries a 429 five times itself (honouring
 * `retry-after-ms` and `retry-after`), then writes an `error` event:
 * `{error: {name: "APIError", data: {message, statusCode: 429, isRetryable, responseHeaders,
 * responseBody}}}`. The status says it is a limit; the message and the provider's body, read by the
 * shared classifier, say whether it is a spent quota and give the reset hint; the response's
 * `retry-after-ms`/`retry-after` headers give it otherwise.
 */
import { classifyRateLimit, type RateLimitFinding } from "../send-loop/rate-limit.js";

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};

/** A `retry-after-ms` or `retry-after` (seconds) header in ms; undefined when absent or a date. */
function headerHintMs(headers: Json): number | undefined {
  const ms = Number(headers["retry-after-ms"]);
  if (Number.isFinite(ms) && ms >= 0 && headers["retry-after-ms"] !== undefined) return Math.round(ms);
  const seconds = Number(headers["retry-after"]);
  if (Number.isFinite(seconds) && seconds >= 0 && headers["retry-after"] !== undefined)
    return Math.round(seconds * 1000);
  return undefined;
}

/** The rate limit an opencode `error` event stands for, or null. Never throws. */
export function opencodeRateLimit(raw: unknown): RateLimitFinding | null {
  const data = asObject(asObject(raw).data);
  const texts = [data.message, data.responseBody].filter((text): text is string => typeof text === "string");
  const fromText = classifyRateLimit(texts.join("\n"));
  const limited = data.statusCode === 429 || data.statusCode === 529;
  if (fromText === null && !limited) return null;
  const finding: RateLimitFinding = fromText ?? { kind: "rate_limited" };
  if (finding.retryAfterMs === undefined && finding.resetsAt === undefined) {
    const hint = headerHintMs(asObject(data.responseHeaders));
    if (hint !== undefined) finding.retryAfterMs = hint;
  }
  return finding;
}
