/**
 * The one classifier of rate-limit and usage-limit failures. A runtime hands it the error its CLI
 * reported (an API error event's message, an `error` JSON line, the stderr tail of a failed process),
 * never the agent's reply or tool output; it answers whether the provider refused for a rate limit
 * (transient: HTTP 429/529, "rate limit reached", "overloaded") or a spent quota ("usage limit",
 * "insufficient_quota"), with the reset hint when the text gives one. Every pattern needs the words a
 * provider uses for a refusal, so "rate limit" as a test's name or "quota" in a file's text is no
 * rate limit.
 */

/** What `classifyRateLimit` found: the kind, and when the limit lifts when the message says so. */
export interface RateLimitFinding {
  kind: "rate_limited" | "usage_limit";
  /** Milliseconds to wait, from a relative hint (`retry-after: 2`, `try again in 20s`). */
  retryAfterMs?: number | undefined;
  /** When the limit resets, from an absolute hint (`resets at 3pm`, an epoch, an ISO time). */
  resetsAt?: Date | undefined;
}

const USAGE_PATTERNS: readonly RegExp[] = [
  /\busage[ _-]limit\b(?![ _-]*(?:test|spec|check)s?\b)/i,
  /\binsufficient[ _-]quota\b/i,
  /\bexceeded (?:your |the )?(?:current |daily |monthly )?quota\b/i,
  /\bquota[ _-](?:exceeded|exhausted|reached|limit reached)\b/i,
  /\bout of (?:quota|credits)\b/i,
  /\bcredit balance is too low\b/i,
  /\bbilling (?:hard )?limit (?:reached|exceeded)\b/i,
  /\b(?:spend(?:ing)?|budget|credit) limit (?:reached|exceeded)\b/i,
  // A plan's window: "5-hour limit reached", "weekly limit reached", "You've hit your limit".
  /\b(?:\d+[ -]hours?|weekly|daily|monthly|session|plan) limit (?:reached|exceeded|hit)\b/i,
  /\b(?:hit|reached|exhausted) (?:your|the) (?:(?:usage|session|weekly|daily|monthly|plan|\d+[ -]hours?) )?limit\b/i,
];

/**
 * A test runner's line (a check mark, FAIL/PASS, TAP's ok, a test file, `it("…")`): a test about rate
 * limits that failed is no rate limit, so such lines are never read.
 */
const TEST_OUTPUT =
  /(?:^|["\]]|:\s)\s*(?:[\u2713\u2717\u00d7\u221a\u2714\u2718]|FAIL\b|PASS\b|(?:not )?ok \d+\b)|\b(?:test|it|describe|spec|scenario)\s*\(?\s*["'`]|\.(?:test|spec)\.[cm]?[jt]sx?\b/i;

/** A quota of requests or tokens per minute is a burst limit, not a spent quota: waiting helps. */
const PER_MINUTE = /\b(?:per ?(?:minute|min|second|sec)|perminute|_per_minute|[RT]PM)\b/i;

const RATE_PATTERNS: readonly RegExp[] = [
  /\brate[ _-]?limit[ _-](?:error|exceeded|reached)\b/i,
  /\brate[ _-]?limit(?:s)? (?:has been |have been |was )?(?:reached|exceeded|hit)\b/i,
  /\b(?:exceed(?:s|ed)?|hit|reached) (?:the |your |a )?(?:[\w']+ ){0,2}rate[ _-]?limits?\b/i,
  /\b(?:rate[ _-]?limited|ratelimited)\b(?! (?:test|spec)s?\b)(?=[^\n]{0,80}(?:retry|try again|wait|slow down|later|\b429\b))/i,
  /\bThrottlingException\b|\b(?:request|requests|you) (?:was |were |are |have been |has been )?throttled\b/i,
  /\b(?:server_is_overloaded|model_overloaded|engine_overloaded)\b/i,
  /\b(?:been|was|were|is|are|being|got|request) rate[ _-]?limited\b/i,
  /\btoo many requests\b/i,
  /\bRESOURCE_EXHAUSTED\b/,
  /\boverloaded[ _-]error\b/i,
  /\b(?:api|server|model|service)(?: is| was)? (?:currently |temporarily )?overloaded\b/i,
  // A status code only where it is one: after status/HTTP/code, or where a message starts.
  /\b(?:status(?:[ _]?code)?|http(?:\/[\d.]+)?|code|error)["']?\W{0,3}(?:429|529)\b/i,
];

/**
 * Patterns that hold only where a message starts: the text's start, after a quote, a newline, `: `
 * or `] ` (a wrapped or JSON-embedded message: `{"message":"529 Overloaded"}`, `API Error: 429 …`).
 */
const START_PATTERNS: readonly RegExp[] = [
  /(?:^|["\n]|[:\]]\s)\s*\(?(?:429|529)\b/i,
  /(?:^|["\n]|[:\]]\s)\s*overloaded\b/i,
  /(?:^|["\n]|[:\]]\s)\s*rate[ _-]?limited\b/i,
];

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/** `1h 20m`, `2 days 3 hours`, `20s`, `17.35s`, `1m30s` in ms; undefined when `text` starts otherwise. */
export function parseDurationPhrase(text: string): number | undefined {
  const part =
    /^\s*(?:and\s+|,\s*)?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)(?![a-z])/i;
  let rest = text;
  let total = 0;
  let found = false;
  for (let match = part.exec(rest); match !== null; match = part.exec(rest)) {
    const unit = match[2]!.toLowerCase();
    const ms = UNIT_MS[unit] ?? UNIT_MS[unit.replace(/s$/, "")];
    if (ms === undefined) break;
    total += Number(match[1]) * ms;
    found = true;
    rest = rest.slice(match[0].length);
  }
  return found ? Math.round(total) : undefined;
}

/** A relative hint: `retry-after: 2`, `try again in 20s`, `retry in 17.3s`, `"retryDelay": "17s"`. */
function relativeHint(text: string): number | undefined {
  const after = /\b(?:try again|retry|retrying|wait(?:ing)?|resets?)\s+(?:after|for)\s+(?=\d)/i.exec(text);
  const afterMs = after ? parseDurationPhrase(text.slice(after.index + after[0].length)) : undefined;
  if (afterMs !== undefined) return afterMs;
  const wait = /\b(?:please )?wait\s+(?=\d)/i.exec(text);
  const waitMs = wait ? parseDurationPhrase(text.slice(wait.index + wait[0].length)) : undefined;
  if (waitMs !== undefined) return waitMs;
  const header =
    /\bretry[ _-]after["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)(?!\s*[-/:]\d)(\s*(?:ms|s|seconds?)\b)?/i.exec(text);
  if (header) return Math.round(Number(header[1]) * (header[2]?.trim().toLowerCase() === "ms" ? 1 : 1000));
  const delay = /\bretryDelay["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)s\b/i.exec(text);
  if (delay) return Math.round(Number(delay[1]) * 1000);
  const phrase =
    /\b(?:try again|retry|retrying|resets?|available again|wait)(?: (?:it |the request ))?\s+in\s+/i;
  const at = phrase.exec(text);
  if (at) return parseDurationPhrase(text.slice(at.index + at[0].length));
  const reset = /\bx-ratelimit-reset(?:-requests|-tokens)?["']?\s*[:=]\s*["']?/i.exec(text);
  if (reset) return parseDurationPhrase(text.slice(reset.index + reset[0].length));
  return undefined;
}

/** An epoch in seconds or milliseconds as a date, when it lies within a year of now. */
function epochDate(digits: string, now: Date): Date | undefined {
  const value = Number(digits);
  const ms = digits.length >= 13 ? value : value * 1000;
  return Math.abs(ms - now.getTime()) < 366 * 86_400_000 ? new Date(ms) : undefined;
}

/** `3pm`, `3:05 PM`, `15:30` as the next such local time after `now`. */
function clockDate(hour: number, minute: number, meridiem: string | undefined, now: Date): Date | undefined {
  let h = hour;
  if (meridiem !== undefined) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (meridiem.toLowerCase().startsWith("p") ? 12 : 0);
  }
  if (h > 23 || minute > 59) return undefined;
  const at = new Date(now);
  at.setHours(h, minute, 0, 0);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at;
}

/** An absolute hint: `resets at 3pm`, `|1733000000` (claude), `"resets_at": 1733000000`, an ISO time. */
function absoluteHint(text: string, now: Date): Date | undefined {
  const claude = /usage limit reached\|(\d{10,13})\b/i.exec(text);
  if (claude) return epochDate(claude[1]!, now);
  // An HTTP-date retry-after: `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`.
  const httpDate =
    /\bretry[ _-]after["']?\s*[:=]\s*["']?((?:mon|tue|wed|thu|fri|sat|sun)[a-z]*, \d{1,2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)/i.exec(
      text,
    );
  if (httpDate) {
    const date = new Date(httpDate[1]!);
    if (!Number.isNaN(date.getTime())) return date;
  }
  const word =
    /\b(?:resets_at|reset_at|reset_time|resets?|until|try again at|available again at)["']?\s*(?:at|on)?\s*[:=]?\s*["']?/i;
  const found = word.exec(text);
  if (!found) return undefined;
  const after = text.slice(found.index + found[0].length);
  const iso = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)/.exec(after);
  if (iso) {
    const date = new Date(iso[1]!.replace(" ", "T"));
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  const epoch = /^(\d{10,13})\b/.exec(after);
  if (epoch) return epochDate(epoch[1]!, now);
  const clock = /^(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?![\d:])/i.exec(after);
  if (clock && (clock[2] !== undefined || clock[3] !== undefined)) {
    return clockDate(Number(clock[1]), Number(clock[2] ?? 0), clock[3]?.replace(/\./g, ""), now);
  }
  return undefined;
}

/**
 * Whether `message` (a CLI's error, not the agent's reply) says the provider refused for a rate limit
 * or a spent quota, and the reset hint it gives. A usage-limit phrase wins over a rate-limit one (a
 * 429 carrying `insufficient_quota` is a spent quota). Null for any other failure. Never throws.
 */
export function classifyRateLimit(message: string, now: Date = new Date()): RateLimitFinding | null {
  // JSON inside a JSON string (a CLI's error event quoting the provider's body) read unescaped.
  const text = message
    .slice(0, 20_000)
    .replace(/\\"/g, '"')
    .replace(/\\n/g, "\n")
    .split("\n")
    .filter((line) => !TEST_OUTPUT.test(line))
    .join("\n");
  const usage = USAGE_PATTERNS.some((pattern) => pattern.test(text));
  const rate =
    usage ||
    RATE_PATTERNS.some((pattern) => pattern.test(text)) ||
    START_PATTERNS.some((pattern) => pattern.test(text));
  if (!rate) return null;
  // Google says RESOURCE_EXHAUSTED for both; a daily or per-day quota is spent, not a burst.
  const googleDaily =
    /RESOURCE_EXHAUSTED/.test(text) && /\bquota\b[^\n]{0,200}\b(?:per ?day|daily)\b/i.test(text);
  const spent = (usage && !PER_MINUTE.test(text)) || googleDaily;
  const finding: RateLimitFinding = { kind: spent ? "usage_limit" : "rate_limited" };
  const retryAfterMs = relativeHint(text);
  if (retryAfterMs !== undefined) finding.retryAfterMs = retryAfterMs;
  else {
    const resetsAt = absoluteHint(text, now);
    if (resetsAt !== undefined) finding.resetsAt = resetsAt;
  }
  return finding;
}

/** How long until the limit lifts, per the finding's hint (undefined: no hint). Never negative. */
export function waitHintMs(finding: RateLimitFinding, now: Date = new Date()): number | undefined {
  if (finding.retryAfterMs !== undefined) return Math.max(0, finding.retryAfterMs);
  if (finding.resetsAt !== undefined) return Math.max(0, finding.resetsAt.getTime() - now.getTime());
  return undefined;
}

/** A send result's fields for a finding: its error kind and hint, for `AgentSendResult`. */
export function rateLimitResultFields(finding: RateLimitFinding): {
  errorKind: "rate_limited" | "usage_limit";
  retryAfterMs?: number;
  resetsAt?: string;
} {
  return {
    errorKind: finding.kind,
    ...(finding.retryAfterMs === undefined ? {} : { retryAfterMs: finding.retryAfterMs }),
    ...(finding.resetsAt === undefined ? {} : { resetsAt: finding.resetsAt.toISOString() }),
  };
}
