/**
 * codex's rate-limit and usage-limit failures, from its JSON events (`turn.failed` `error.message`, or
 * the last `error` event): "exceeded retry limit, last status: 429 Too Many Requests" once its
 * provider's `request_max_retries` are spent (no body, no hint), "Quota exceeded. Check your plan and
 * billing details." for a spent quota, and a ChatGPT plan's "You've hit your usage limit … try again
 * in 4 days 2 hours" / "try again at 3:05 PM" (the shared classifier reads the reset time).
 */
import { classifyRateLimit, type RateLimitFinding } from "../send-loop/rate-limit.js";

/** The rate limit behind codex's reported error, or null. Never throws. */
export function codexRateLimit(error: string | undefined): RateLimitFinding | null {
  return error === undefined ? null : classifyRateLimit(error);
}
