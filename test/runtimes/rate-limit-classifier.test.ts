import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { claudeRateLimit } from "../../src/runtimes/claude-code/rate-limits.js";
import { codexRateLimit } from "../../src/runtimes/codex/rate-limits.js";
import { geminiRateLimit } from "../../src/runtimes/gemini/rate-limits.js";
import { opencodeRateLimit } from "../../src/runtimes/opencode/rate-limits.js";
import { piRateLimit } from "../../src/runtimes/pi/rate-limits.js";
import {
  classifyRateLimit,
  parseDurationPhrase,
  waitHintMs,
} from "../../src/runtimes/send-loop/rate-limit.js";

const NOW = new Date("2026-12-07T10:00:00.000Z");
const SEED = { seed: 0x39_0003, numRuns: 400 };

/** The ways a CLI wraps a provider's message: prefixes, JSON inside text, quoting, stderr noise. */
const wrap = fc.constantFrom(
  (m: string) => m,
  (m: string) => `Error: ${m}`,
  (m: string) => `API Error: ${m}`,
  (m: string) => `pi reported a model error: ${m}`,
  (m: string) => `claude reported an error (API status 500): ${m}`,
  (m: string) => `{"type":"error","error":{"message":${JSON.stringify(m)}}}`,
  (m: string) => `stream error: ${JSON.stringify({ error: { message: m } })}\n    at fetch (node:internal)`,
  (m: string) => `[2026-12-07T10:00:00Z ERROR codex_core] ${m}`,
);

const casing = fc.constantFrom(
  (m: string) => m,
  (m: string) => m.toUpperCase(),
  (m: string) => m.toLowerCase(),
);

const rateMessages = fc.constantFrom(
  "429 Rate limit reached for requests. Please try again later.",
  "Request rejected (429) · Rate limit reached",
  'HTTP 429 Too Many Requests: {"error":{"type":"rate_limit_error"}}',
  '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  "529 Overloaded",
  "status code 529",
  "You have been rate limited, slow down",
  "rate_limit_exceeded: Rate limit reached for gpt-5 in organization org-x on tokens per min",
  '{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}',
  "The model is currently overloaded",
  "This request would exceed your organization's rate limit of 50,000 input tokens per minute",
  "ThrottlingException: Too many tokens, please wait before trying again.",
  '{"error":{"code":"server_is_overloaded","message":"busy"}}',
  "Quota exceeded for quota metric 'Generate Content API requests per minute'",
);

const usageMessages = fc.constantFrom(
  "You've hit your usage limit. Upgrade to Pro or try again later.",
  "429 You exceeded your current quota, please check your plan and billing details.",
  '{"error":{"type":"insufficient_quota","code":"insufficient_quota"}}',
  "Claude AI usage limit reached",
  "Quota exceeded for quota metric 'Generate Content API requests per day'",
  "Your credit balance is too low to access the Anthropic API.",
  "5-hour limit reached ∙ resets 3pm",
  "You've hit your limit · resets 4pm (Europe/Berlin)",
  "Weekly limit reached",
);

/** Failures that are not rate limits, including the words in a test's name or a file's text. */
const otherMessages = fc.constantFrom(
  "exited with code 1",
  'test "rate limit handling" failed: expected 3 to be 4',
  "FAIL src/rate-limit.test.ts > rate limiter > resets the window",
  "cat config.yaml: quota: 100\nrate_limit: 20",
  "Error: ENOENT: no such file or directory, open 'quota.txt'",
  "400 Bad Request: invalid_request_error: max_tokens too large",
  "401 authentication_error: invalid x-api-key",
  "the disk quota of /home is 5 GB",
  "src/limits.ts:429:12 - error TS2322: Type 'string' is not assignable",
  "implement the usage limit tests next",
  "500 Internal Server Error",
  'test "rate limit exceeded" failed',
  "✗ returns 429 when clients hit the rate limit",
  "FAIL src/api.test.ts > rate limit exceeded > responds 429 Too Many Requests",
  "    it('resets at 3pm when the usage limit is reached')",
  "not ok 3 - quota exceeded is reported to the user",
);

describe("classifyRateLimit (fast-check, fixed seed)", () => {
  it("finds a rate limit in every wrapping and casing of a provider's 429/529 message", () => {
    fc.assert(
      fc.property(rateMessages, wrap, casing, (message, wrapIn, caseOf) => {
        const text = wrapIn(caseOf(message));
        const found = classifyRateLimit(text, NOW);
        // Upper-casing turns "RESOURCE_EXHAUSTED … quota" into nothing new; every shape stays a limit.
        expect(found, text).not.toBeNull();
      }),
      SEED,
    );
  });

  it("calls a spent quota a usage limit, whatever the wrapping", () => {
    fc.assert(
      fc.property(usageMessages, wrap, casing, (message, wrapIn, caseOf) => {
        const text = wrapIn(caseOf(message));
        expect(classifyRateLimit(text, NOW)?.kind, text).toBe("usage_limit");
      }),
      SEED,
    );
  });

  it("never calls another failure a rate limit (test names, file contents, other statuses)", () => {
    fc.assert(
      fc.property(otherMessages, wrap, casing, (message, wrapIn, caseOf) => {
        const text = wrapIn(caseOf(message));
        expect(classifyRateLimit(text, NOW), text).toBeNull();
      }),
      SEED,
    );
  });

  it("reads relative reset hints in every form and unit", () => {
    const forms = fc.constantFrom(
      (n: number) => [`retry-after: ${n}`, n * 1000],
      (n: number) => [`Retry-After=${n}`, n * 1000],
      (n: number) => [`Please try again in ${n}s.`, n * 1000],
      (n: number) => [`try again in ${n} seconds`, n * 1000],
      (n: number) => [`Please retry in ${n}.5s`, n * 1000 + 500],
      (n: number) => [`"retryDelay": "${n}s"`, n * 1000],
      (n: number) => [`try again in ${n} minutes`, n * 60_000],
      (n: number) => [`try again in 1m${n}s`, 60_000 + n * 1000],
      (n: number) => [`resets in ${n}h 5m`, n * 3_600_000 + 300_000],
      (n: number) => [`try again in ${n}ms`, n],
      (n: number) => [`x-ratelimit-reset-requests: ${n}s`, n * 1000],
      (n: number) => [`Retry after ${n} seconds`, n * 1000],
      (n: number) => [`please wait ${n}s before trying again`, n * 1000],
    );
    fc.assert(
      fc.property(rateMessages, forms, fc.integer({ min: 1, max: 59 }), wrap, (message, form, n, wrapIn) => {
        const [hint, ms] = form(n) as [string, number];
        const text = wrapIn(`${message} ${hint}`);
        const found = classifyRateLimit(text, NOW);
        expect(found?.retryAfterMs, text).toBe(ms);
        expect(waitHintMs(found!, NOW)).toBe(ms);
      }),
      SEED,
    );
  });

  it("reads absolute reset times: epochs (claude's |<epoch>, resets_at), ISO times and clock times", () => {
    const epoch = Math.floor(NOW.getTime() / 1000) + 3600;
    expect(classifyRateLimit(`Claude AI usage limit reached|${epoch}`, NOW)).toEqual({
      kind: "usage_limit",
      resetsAt: new Date(epoch * 1000),
    });
    expect(classifyRateLimit(`429 {"resets_at": ${epoch}}`, NOW)?.resetsAt).toEqual(new Date(epoch * 1000));
    expect(
      classifyRateLimit("usage limit reached; resets at 2026-12-07T12:30:00Z", NOW)?.resetsAt?.toISOString(),
    ).toBe("2026-12-07T12:30:00.000Z");
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 59 }),
        fc.constantFrom("am", "pm", "AM", "PM", "p.m."),
        fc.constantFrom("resets at", "resets", "try again at", "Your limit resets at"),
        (hour, minute, meridiem, words) => {
          const clock = `${hour}:${String(minute).padStart(2, "0")} ${meridiem}`;
          const found = classifyRateLimit(`5-hour limit reached ∙ usage limit ${words} ${clock}`, NOW);
          const at = found?.resetsAt;
          expect(at, clock).toBeInstanceOf(Date);
          const pm = meridiem.toLowerCase().startsWith("p");
          expect(at!.getHours()).toBe((hour % 12) + (pm ? 12 : 0));
          expect(at!.getMinutes()).toBe(minute);
          // The next such time: within a day after now.
          expect(at!.getTime() - NOW.getTime()).toBeGreaterThan(0);
          expect(at!.getTime() - NOW.getTime()).toBeLessThanOrEqual(86_400_000);
        },
      ),
      SEED,
    );
  });

  it("reads an HTTP-date retry-after as an absolute reset", () => {
    expect(
      classifyRateLimit("429 Too Many Requests; Retry-After: Mon, 07 Dec 2026 10:05:00 GMT", NOW)?.resetsAt,
    ).toEqual(new Date("2026-12-07T10:05:00.000Z"));
  });

  it("gives no hint when the message has none, and ignores numbers that are no reset", () => {
    expect(classifyRateLimit("429 Too Many Requests", NOW)).toEqual({ kind: "rate_limited" });
    expect(classifyRateLimit("usage limit reached for plan 2026", NOW)).toEqual({ kind: "usage_limit" });
    expect(parseDurationPhrase("soon")).toBeUndefined();
    expect(parseDurationPhrase("2 days 3 hours 10 minutes")).toBe(2 * 86_400_000 + 3 * 3_600_000 + 600_000);
  });
});

describe("each runtime's recogniser", () => {
  it("claude: api_error_status 429/529 or the rate_limit tag, with the delay of its last internal retry", () => {
    expect(
      claudeRateLimit({
        apiErrorStatus: 429,
        errorTag: "rate_limit",
        lastRetryDelayMs: 2100,
        text: "API Error: Request rejected (429) · Rate limit reached for requests.",
      }),
    ).toEqual({ kind: "rate_limited", retryAfterMs: 2100 });
    expect(
      claudeRateLimit({
        apiErrorStatus: 529,
        errorTag: undefined,
        lastRetryDelayMs: undefined,
        text: "Overloaded",
      }),
    ).toEqual({ kind: "rate_limited" });
    expect(
      claudeRateLimit({
        apiErrorStatus: 400,
        errorTag: undefined,
        lastRetryDelayMs: undefined,
        text: 'test "rate limit" failed',
      }),
    ).toBeNull();
  });

  it("pi: an errored message's text; an aborted one never", () => {
    expect(piRateLimit("error", "429 You exceeded your current quota")?.kind).toBe("usage_limit");
    expect(piRateLimit("aborted", "429 Rate limit reached")).toBeNull();
    expect(piRateLimit("error", "400 invalid request")).toBeNull();
  });

  it("codex: its retry-limit message, a plan's usage limit with the days-and-hours reset", () => {
    expect(codexRateLimit("exceeded retry limit, last status: 429 Too Many Requests")).toEqual({
      kind: "rate_limited",
    });
    expect(
      codexRateLimit("You've hit your usage limit. Upgrade to Pro or try again in 1 day 2 hours 5 minutes."),
    ).toEqual({ kind: "usage_limit", retryAfterMs: 86_400_000 + 2 * 3_600_000 + 300_000 });
    expect(codexRateLimit("Quota exceeded. Check your plan and billing details.")?.kind).toBe("usage_limit");
    expect(codexRateLimit(undefined)).toBeNull();
    expect(codexRateLimit("stream disconnected before completion: connection reset")).toBeNull();
  });

  it("gemini: RESOURCE_EXHAUSTED with the API's retry delay; a per-day quota is spent", () => {
    expect(
      geminiRateLimit(
        '[429] {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"retryDelay":"17s"}]}}',
      ),
    ).toEqual({ kind: "rate_limited", retryAfterMs: 17_000 });
    expect(
      geminiRateLimit(
        "RESOURCE_EXHAUSTED: Quota exceeded for metric generate_content_free_tier_requests, limit per day",
      )?.kind,
    ).toBe("usage_limit");
  });

  it("opencode: the error event's status, with the response's retry-after-ms or retry-after header", () => {
    const event = (data: Record<string, unknown>) => ({ name: "APIError", data });
    expect(
      opencodeRateLimit(
        event({ message: "Too busy", statusCode: 429, responseHeaders: { "retry-after-ms": "1500" } }),
      ),
    ).toEqual({ kind: "rate_limited", retryAfterMs: 1500 });
    expect(
      opencodeRateLimit(
        event({ message: "Overloaded", statusCode: 529, responseHeaders: { "retry-after": "3" } }),
      ),
    ).toEqual({ kind: "rate_limited", retryAfterMs: 3000 });
    expect(
      opencodeRateLimit(
        event({ message: "Bad", statusCode: 429, responseBody: '{"error":{"code":"insufficient_quota"}}' }),
      )?.kind,
    ).toBe("usage_limit");
    expect(opencodeRateLimit(event({ message: "bad key", statusCode: 401 }))).toBeNull();
  });
});
