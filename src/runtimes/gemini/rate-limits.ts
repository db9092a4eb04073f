/**
 * gemini's rate-limit and usage-limit failures, from its stream-json `result` (status `error`) or last
 * `error` event: the Gemini API's error passed on, `[429] … RESOURCE_EXHAUSTED`, with the API's
 * "Please retry in 17.3s" or `"retryDelay": "17s"` as the hint, and a per-day quota ("… requests per
 * day") as a spent quota. gemini retries itself first, up to `general.maxAttempts` in its settings.
 */
import { classifyRateLimit, type RateLimitFinding } from "../send-loop/rate-limit.js";

/** The rate limit behind gemini's reported error, or null. Never throws. */
export function geminiRateLimit(message: string): RateLimitFinding | null {
  return classifyRateLimit(message);
}
