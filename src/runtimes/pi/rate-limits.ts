/**
 * pi's rate-limit and usage-limit failures. pi ends such a send with an assistant message whose
 * `stopReason` is `error` and whose `errorMessage` is the provider's status and message
 * ("429 Rate limit reached for requests…", "429 You exceeded your current quota…",
 * "529 {"type":"error","error":{"type":"overloaded_error"…}}"); it passes no `retry-after`, so only a
 * hint inside the message text is known. Its own retries (`auto_retry_start`, settings `retry`) come
 * first: sssf's fake-model agent dir turns them off.
 */
import { classifyRateLimit, type RateLimitFinding } from "../send-loop/rate-limit.js";

/** The rate limit an errored message stands for, or null. `stopReason: "aborted"` never is one. */
export function piRateLimit(
  stopReason: string | undefined,
  errorMessage: string | undefined,
): RateLimitFinding | null {
  if (stopReason !== "error" || errorMessage === undefined) return null;
  return classifyRateLimit(errorMessage);
}
