/**
 * claude's rate-limit and usage-limit failures, from its stream-json: the result line's
 * `api_error_status` (429, 529), the synthetic assistant message's `error` tag (`rate_limit`), and
 * the `api_retry` lines claude writes while it retries internally (their `retry_delay_ms` already
 * honours the provider's `retry-after`). The text ("API Error: Request rejected (429) · …", "Claude
 * AI usage limit reached|<epoch>", "5-hour limit reached ∙ resets 3pm") goes through the shared
 * classifier, which also finds a usage limit and its reset time.
 */
import { classifyRateLimit, type RateLimitFinding } from "../send-loop/rate-limit.js";

/** What the stream said that bears on a rate limit. */
export interface ClaudeLimitSignals {
  /** The result line's `api_error_status`. */
  apiErrorStatus: unknown;
  /** The assistant line's `error` tag (`rate_limit`, `model_not_found`…). */
  errorTag: string | undefined;
  /** The delay of claude's last internal retry of a 429/529, in ms. */
  lastRetryDelayMs: number | undefined;
  /** The failure text claude gave (its `result`, or its `errors`). */
  text: string;
}

const LIMIT_STATUSES = new Set([429, 529]);

/** The rate limit behind a failed claude send, or null when it is another failure. Never throws. */
export function claudeRateLimit(signals: ClaudeLimitSignals): RateLimitFinding | null {
  const fromText = classifyRateLimit(signals.text);
  const status = typeof signals.apiErrorStatus === "number" ? signals.apiErrorStatus : Number.NaN;
  const tagged = signals.errorTag === "rate_limit" || LIMIT_STATUSES.has(status);
  if (fromText === null && !tagged) return null;
  const finding: RateLimitFinding = fromText ?? { kind: "rate_limited" };
  if (
    finding.retryAfterMs === undefined &&
    finding.resetsAt === undefined &&
    signals.lastRetryDelayMs !== undefined
  )
    finding.retryAfterMs = signals.lastRetryDelayMs;
  return finding;
}
