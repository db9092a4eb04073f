import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { placeholder, redactSecrets, SECRET_PATTERNS } from "../../../src/util/secrets/redact.js";
import { redactJsonText } from "../../../src/util/secrets/redact-json.js";
import { KeywordScanner } from "../../../src/util/secrets/text-scan.js";

const NAMED = placeholder("named-value");

const positives: [string, string][] = [
  ["ANTHROPIC_API_KEY=abc123", "ANTHROPIC_API_KEY=[redacted:named-value]"],
  ["export OPENAI_API_KEY='abc def'", "export OPENAI_API_KEY='[redacted:named-value]'"],
  ['DB_PASSWORD="hunter2" run', 'DB_PASSWORD="[redacted:named-value]" run'],
  ['{"api_key": "abc"}', '{"api_key": "[redacted:named-value]"}'],
  ['{"ClientSecret":"a\\"b"}', '{"ClientSecret":"[redacted:named-value]"}'],
  ['{"out":"{\\"auth_token\\": \\"abc\\"}"}', '{"out":"{\\"auth_token\\": \\"[redacted:named-value]\\"}"}'],
  ["password: hunter22", "password: [redacted:named-value]"],
  ["x-api-key: abcdefghijklmnopqrstuv", "x-api-key: [redacted:named-value]"],
  ["GET /v1?access_token=abc&page=2", "GET /v1?access_token=[redacted:named-value]&page=2"],
  [`use sk-ant-api03-${"a1".repeat(20)} now`, "use [redacted:anthropic-api-key] now"],
  [`key=sk-proj-${"Z9".repeat(12)}`, "key=[redacted:openai-api-key]"],
  [`AIza${"B".repeat(35)}`, "[redacted:gcp-api-key]"],
  [`token ghp_${"c".repeat(36)}.`, "token [redacted:github-pat]."],
  [`github_pat_11${"D".repeat(40)}`, "[redacted:github-fine-grained-pat]"],
  ["slack xoxb-1234567890-abcdefghij", "slack [redacted:slack-bot-token]"],
  ["aws AKIAIOSFODNN7EXAMPLE here", "aws [redacted:aws-access-token] here"],
  ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "Authorization: Bearer [redacted:bearer]"],
  // Not a stand-alone Bearer, but what follows it is a known token.
  [`0Bearer  sk-ant-api03-${"a1".repeat(20)} x`, "0Bearer  [redacted:anthropic-api-key] x"],
  // A password in a URL's user info: a git remote, a database URL.
  [
    "fatal: https://oauth2:glpat-abcdEFGH1234@gitlab.com/org/repo.git",
    "fatal: https://oauth2:[redacted:url-password]@gitlab.com/org/repo.git",
  ],
  [
    "postgres://sssf:hunter2@db.internal:5432/trace",
    "postgres://sssf:[redacted:url-password]@db.internal:5432/trace",
  ],
  // A token glued by a dash to a word the pattern took for a token and refused.
  [`task--sk-ant-api03-${"a1".repeat(20)}`, "task--[redacted:anthropic-api-key]"],
  [`AIza-ghp_${"c".repeat(36)} x`, "AIza-[redacted:github-pat] x"],
];

const negatives = [
  "ls -la src && cat package.json",
  '{"input_tokens": 1200, "max_tokens": 4096, "cache_read_tokens": 0}',
  '{"key": "phase_id", "token": null, "secret": ""}',
  "the key: enter the room",
  "const token = getToken(); if (token == null) return;",
  "apiKey: string; password?: string",
  "tokenizer=bert keyboard=us",
  "API_KEY=$API_KEY",
  "scikit sk-learn risk-free ask-me-anything-ok-really-long-string",
  "the bearer of bad news",
  "AKIAIOSFODNN7EXAMPLEXYZ is too long to be a key id",
  "日本語のテキスト token は大丈夫",
  "http://localhost:8080/health and git@github.com:org/repo.git and https://user@host/x",
];

describe("redactSecrets", () => {
  it.each(positives)("redacts %s", (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it.each(negatives.map((text) => [text]))("leaves %s alone", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it("is idempotent", () => {
    for (const [input] of positives) {
      const once = redactSecrets(input);
      expect(redactSecrets(once)).toBe(once);
    }
  });

  it("never backtracks catastrophically on long identifier-like runs", () => {
    const blob = `${"A".repeat(500_000)}key=1 ${"b".repeat(500_000)}`;
    const started = performance.now();
    redactSecrets(blob);
    // A hang detector, not a speed target (linear work here is milliseconds; backtracking would be hours).
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("redactJsonText", () => {
  it("keeps a JSON payload valid when a secret breaks the string form", () => {
    const payload = JSON.stringify({ a: "token:", b: "c", nested: { password: "hunter", list: ["sk-x"] } });
    const redacted = redactJsonText(payload);
    expect(JSON.parse(redacted)).toEqual({
      a: "token:",
      b: "c",
      nested: { password: NAMED, list: ["sk-x"] },
    });
  });

  it("redacts inside string values and returns clean text unchanged", () => {
    const payload = JSON.stringify({ command: "ANTHROPIC_API_KEY=abc pi -p hi", usage: { input_tokens: 3 } });
    expect(JSON.parse(redactJsonText(payload))).toEqual({
      command: "ANTHROPIC_API_KEY=[redacted:named-value] pi -p hi",
      usage: { input_tokens: 3 },
    });
    const clean = '{"command":"ls"}';
    expect(redactJsonText(clean)).toBe(clean);
    expect(redactJsonText("not json password=x")).toBe("not json password=[redacted:named-value]");
  });
});

describe("redactSecrets' keyword scan", () => {
  // Pieces of every pattern (starts of tokens, names, separators, values), so generated texts often match.
  const pieces = [
    "sk-",
    "sk-ant-",
    "AIza",
    "ghp_",
    "gho_",
    "github_pat_",
    "xoxb-",
    "AKIA",
    "ASIA",
    "Bearer ",
    "bearer\t",
    "KEY",
    "key",
    "Token",
    "secret",
    "PassWord",
    "api_",
    "=",
    ": ",
    '"',
    "'",
    '\\"',
    "[redacted:named-value]",
    "[redacted:env:X_TOKEN]",
    " ",
    "\n",
    "a1B2c3D4e5F6g7H8i9J0",
    "://",
    "@",
    "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
    "-_",
    "{",
    "}",
    "ü",
    "😀",
  ];
  const text = fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), { maxLength: 24 })
    .map((parts) => parts.join(""));

  it("lets through every text the full pattern matches (fixed seed)", () => {
    const full = new RegExp(SECRET_PATTERNS.full);
    const scanner = new KeywordScanner(SECRET_PATTERNS.keywords);
    const prefilter = { test: (sample: string) => scanner.scan(sample).keywords.size > 0 };
    let matched = 0;
    fc.assert(
      fc.property(text, (sample) => {
        if (!full.test(sample)) return true;
        matched += 1;
        return prefilter.test(sample);
      }),
      { seed: 20261204, numRuns: 20_000 },
    );
    // The generator reaches the patterns often enough for the property to mean something.
    expect(matched).toBeGreaterThan(500);
  });

  it("redacts every stand-alone token wherever it stands in generated text, glued on by any separator (fixed seed)", () => {
    const tokens = [
      `sk-ant-api03-${"a1".repeat(20)}`,
      `ghp_${"c".repeat(36)}`,
      "AKIAIOSFODNN7EXAMPLE",
      "xoxb-1234567890-abcdefghij",
      `AIza${"B".repeat(35)}`,
      `github_pat_11${"D".repeat(40)}`,
    ];
    // Not word characters: a token after one stands alone, even glued to a word by a dash (`task--sk-…`).
    const separators = [
      " ",
      "\n",
      "\t",
      "=",
      ":",
      '"',
      "'",
      "(",
      ",",
      ";",
      "/",
      "-",
      ".",
      "\\",
      "`",
      "|",
      "<",
      "@",
      "+",
    ];
    fc.assert(
      fc.property(
        text,
        fc.constantFrom(...separators),
        fc.constantFrom(...tokens),
        fc.constantFrom(...separators),
        text,
        (before, open, token, close, after) => {
          const redacted = redactSecrets(`${before}${open}${token}${close}${after}`);
          expect(redacted).not.toContain(token.slice(4, 20));
          expect(redactSecrets(redacted)).toBe(redacted);
        },
      ),
      { seed: 20261204, numRuns: 5_000 },
    );
  });

  it("stays linear on runs that look like tokens glued together", () => {
    for (const run of [
      "ask-".repeat(250_000),
      "xsk--sk-".repeat(100_000),
      "AIza-".repeat(200_000),
      "xBearer ".repeat(100_000),
    ]) {
      const started = performance.now();
      redactSecrets(run);
      // A hang detector, not a speed target (each of these is under 100 ms here; quadratic would be hours).
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });
});
