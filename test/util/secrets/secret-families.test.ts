import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GitleaksRules } from "../../../src/util/secrets/gitleaks-loader.js";
import { GITLEAKS_RULES } from "../../../src/util/secrets/gitleaks-rules.js";
import { JoinedRedactor } from "../../../src/util/secrets/joined-redactor.js";
import { redactSecrets } from "../../../src/util/secrets/redact.js";
import { filesUnder } from "./secret-fixtures.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URL_SAFE = `${ALNUM}-_`;

/** `n` characters drawn from `alphabet`, unbiased: a real key looks random, not `AAAA…`. */
const chars = (alphabet: string, n: number) =>
  fc
    .noBias(fc.array(fc.constantFrom(...alphabet), { minLength: n, maxLength: n }))
    .map((list) => list.join(""));
const b64url = (json: string) => Buffer.from(json).toString("base64url");

/** One generated secret of a family, and the placeholder it must become. */
interface Family {
  name: string;
  secret: fc.Arbitrary<string>;
  rule: string;
}

const pem = fc
  .record({
    kind: fc.constantFrom("RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA ", ""),
    bytes: fc.noBias(fc.uint8Array({ minLength: 120, maxLength: 1200 })),
    width: fc.constantFrom(64, 70, 76),
  })
  .map(({ kind, bytes, width }) => {
    const body = Buffer.from(bytes).toString("base64");
    const lines = body.match(new RegExp(`.{1,${width}}`, "g")) ?? [];
    return `-----BEGIN ${kind}PRIVATE KEY-----\n${lines.join("\n")}\n-----END ${kind}PRIVATE KEY-----`;
  });

const FAMILIES: Family[] = [
  {
    name: "AWS secret access key",
    secret: fc
      .noBias(fc.uint8Array({ minLength: 30, maxLength: 30 }))
      .map((bytes) => Buffer.from(bytes).toString("base64"))
      // 1 in 900 random keys has no digit: sssf lets those pass (see looksLikeAwsSecretKey).
      .filter((key) => /\d/.test(key) && (key.match(/\//g)?.length ?? 0) <= 3),
    rule: "aws-secret-key",
  },
  {
    name: "JWT",
    secret: fc
      .record({ sub: chars(ALNUM, 12), sig: chars(URL_SAFE, 43) })
      .map(
        ({ sub, sig }) =>
          `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${sub}","iat":1700000000}`)}.${sig}`,
      ),
    rule: "jwt",
  },
  { name: "private key block", secret: pem, rule: "private-key" },
  {
    name: "Stripe live or restricted key",
    secret: fc
      .record({ kind: fc.constantFrom("sk_live_", "rk_live_"), rest: chars(ALNUM, 24) })
      .map(({ kind, rest }) => `${kind}${rest}`),
    rule: "stripe-access-token",
  },
  { name: "GitHub token", secret: chars(ALNUM, 36).map((rest) => `ghp_${rest}`), rule: "github-pat" },
  {
    name: "Slack bot token",
    secret: fc
      .record({ a: chars("0123456789", 11), b: chars("0123456789", 12), c: chars(ALNUM, 24) })
      .map(({ a, b, c }) => `xoxb-${a}-${b}-${c}`),
    rule: "slack-bot-token",
  },
  {
    name: "OpenAI key",
    secret: fc
      .record({ a: chars(URL_SAFE, 74), b: chars(URL_SAFE, 74) })
      .map(({ a, b }) => `sk-proj-${a}T3BlbkFJ${b}`),
    rule: "openai-api-key",
  },
  {
    name: "Anthropic key",
    secret: chars(URL_SAFE, 93).map((rest) => `sk-ant-api03-${rest}AA`),
    rule: "anthropic-api-key",
  },
  { name: "Google API key", secret: chars(URL_SAFE, 35).map((rest) => `AIza${rest}`), rule: "gcp-api-key" },
];

const context = fc.constantFrom(
  ["", ""],
  ["export X=", "\n"],
  ['{"result": "', '"}'],
  ["output:\n", "\ndone"],
  ["key (", "), next"],
  ["curl -d ", " https://api.example.test/v1"],
);

/** Whether `redacted` holds a run of 8 characters of `secret` (its key material: no PEM header lines). */
function leaksPieceOf(redacted: string, secret: string): boolean {
  const stripped = secret.replace(/-----(?:BEGIN|END)[A-Z ]*-----|\s/g, "");
  for (let at = 0; at + 8 <= stripped.length; at += 1) {
    const piece = stripped.slice(at, at + 8);
    if (!/[+/=]/.test(piece) && redacted.replace(/\s/g, "").includes(piece)) return true;
  }
  return false;
}

const SEED = 20261206;

describe("secret families (generated, fixed seed)", () => {
  for (const family of FAMILIES) {
    it(`redacts every ${family.name}, plain, in base64 and URL-encoded, in any context`, () => {
      fc.assert(
        fc.property(family.secret, context, (secret, [before, after]) => {
          const plain = redactSecrets(`${before}${secret}${after}`);
          expect(plain).toContain(`[redacted:${family.rule}]`);
          expect(leaksPieceOf(plain, secret)).toBe(false);
          expect(redactSecrets(plain)).toBe(plain);
          const base64 = Buffer.from(`${before}${secret}${after}`).toString("base64");
          const wrapped = redactSecrets(`echo ${base64} | base64 -d`);
          // gitleaks knows a base64 JWT by its shape (jwt-base64); anything else is decoded and scanned.
          expect(wrapped).toMatch(/\[redacted:(?:base64:|jwt-base64\])/);
          expect(wrapped).not.toContain(base64.slice(8, 40));
          const encoded = encodeURIComponent(secret);
          const url = redactSecrets(`GET /cb?state=${encoded}&x=1`);
          expect(url).not.toContain(encoded.slice(0, 30));
          expect(leaksPieceOf(url, secret)).toBe(false);
        }),
        { seed: SEED, numRuns: 60 },
      );
    });
  }

  it("redacts a secret split across two outputs at every offset, in both outputs", () => {
    for (const family of FAMILIES) {
      const [secret] = fc.sample(family.secret, { seed: SEED, numRuns: 1 });
      if (secret === undefined) throw new Error("no sample");
      const whole = `$ cat creds\n${secret}\nok\n`;
      for (let cut = 13; cut < 12 + secret.length; cut++) {
        const stored: string[] = [];
        const joined = new JoinedRedactor();
        joined.push(whole.slice(0, cut), (text) => stored.push(text));
        joined.push(whole.slice(cut), (text) => stored.push(text));
        joined.flush();
        expect(stored, `${family.name} cut at ${cut}`).toHaveLength(2);
        const [first = "", second = ""] = stored;
        // What is left of the secret in each output is a redaction, not a piece of it.
        expect(leaksPieceOf(first, secret), `${family.name} cut at ${cut}: ${first}`).toBe(false);
        expect(leaksPieceOf(second, secret), `${family.name} cut at ${cut}: ${second}`).toBe(false);
        expect(`${first}${second}`).toContain("[redacted:");
      }
    }
  });

  it("hands on at once a piece that cannot end inside a secret, so the live view does not wait for the next", () => {
    for (const text of ["no match", "# sandbox", "done\n", "exit 1", "a.md: ok"]) {
      const stored: string[] = [];
      new JoinedRedactor().push(text, (redacted) => stored.push(redacted));
      expect(stored, text).toEqual([text]);
    }
    const held: string[] = [];
    new JoinedRedactor().push("key: wJalrXUtnF", (redacted) => held.push(redacted));
    expect(held).toEqual([]);
  });

  it("leaves two clean outputs as they were", () => {
    const stored: string[] = [];
    const joined = new JoinedRedactor();
    joined.push("total 12\ndrwxr-xr-x src", (text) => stored.push(text));
    joined.push("/util\n", (text) => stored.push(text));
    joined.flush();
    expect(stored).toEqual(["total 12\ndrwxr-xr-x src", "/util\n"]);
  });
});

describe("clean text stays as it is", () => {
  it("git SHAs, UUIDs, hashes, base64 of ordinary text and ordinary code (fixed seed)", () => {
    const clean = fc.oneof(
      fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString("hex")),
      fc.uuid(),
      fc
        .string({ minLength: 1, maxLength: 40 })
        .map((text) => createHash("sha256").update(text).digest("hex")),
      fc
        .array(
          fc.constantFrom("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "then"),
          {
            minLength: 4,
            maxLength: 30,
          },
        )
        .map((words) => Buffer.from(words.join(" ")).toString("base64")),
      fc.constantFrom(
        "const token = getToken(); if (token == null) return;",
        "function createRawOutputWriter(path: string, onError: (message: string) => void)",
        "import { redactSecrets } from './redact.js';",
        "commit e83c5163316f89bfbd7d9ab23ca2e25604af2908\nAuthor: A <a@example.test>",
      ),
    );
    fc.assert(
      fc.property(clean, (text) => {
        expect(redactSecrets(text)).toBe(text);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("sssf's own sources and docs: a clean corpus, every redaction in it counted", () => {
    const files = [...filesUnder("src"), ...filesUnder("docs"), ...filesUnder("bench")].filter(
      (file) => /\.(?:ts|mjs|md|json)$/.test(file) && !file.endsWith("gitleaks-rules.json"),
    );
    const found: string[] = [];
    let lines = 0;
    for (const file of files) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        lines++;
        const redacted = redactSecrets(line);
        if (redacted !== line) found.push(`${file}: ${redacted.trim().slice(0, 120)}`);
      }
    }
    expect(lines).toBeGreaterThan(30_000);
    // The redactions of this corpus are examples of secrets in docs and test-shaped values in code.
    expect(found.length / lines).toBeLessThan(0.002);
  });
});

describe("gitleaks' rules", () => {
  it("every rule sssf uses converts to a JavaScript regex", () => {
    const rules = new GitleaksRules(GITLEAKS_RULES).compileAll();
    expect(rules.length).toBeGreaterThan(200);
  });
});
