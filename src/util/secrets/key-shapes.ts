/**
 * Two shapes of secret no rule with a keyword finds: the pieces of a private key block cut in two (a
 * BEGIN without its END, an END without its BEGIN), and an AWS secret access key standing alone
 * without its name.
 */
import { shannonEntropy } from "./gitleaks-loader.js";
import type { SecretSpan } from "./secret-values.js";
import type { Base64Run } from "./text-scan.js";

const DIGIT = /\d/;

const PEM_HEADER = "[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----";
const PEM_BEGIN = new RegExp(`-----BEGIN${PEM_HEADER}`, "gi");
const PEM_END = new RegExp(`-----END${PEM_HEADER}`, "gi");
// What a key's body is made of (base64 lines, PEM headers such as `Proc-Type: 4,ENCRYPTED`, and the
// backslash of an escaped newline in JSON text).
const PEM_BODY_CHAR = /[A-Za-z0-9+/=\s\\:,-]/;

export const inside = (spans: readonly SecretSpan[], at: number): boolean =>
  spans.some((span) => span.start <= at && at < span.end);

/**
 * The pieces of a private key block that gitleaks' rule (a whole block) cannot see: a BEGIN line without
 * its END (the block was cut, or the rest is in the next output) is redacted to the end of the text; an
 * END line without its BEGIN, with the key lines before it.
 */
export function findPemFragments(text: string, spans: SecretSpan[], begin: boolean, end: boolean): void {
  if (begin) {
    PEM_BEGIN.lastIndex = 0;
    for (let match = PEM_BEGIN.exec(text); match !== null; match = PEM_BEGIN.exec(text)) {
      if (inside(spans, match.index)) continue;
      spans.push({ start: match.index, end: text.length, rule: "private-key" });
      break;
    }
  }
  if (end) {
    PEM_END.lastIndex = 0;
    for (let match = PEM_END.exec(text); match !== null; match = PEM_END.exec(text)) {
      if (inside(spans, match.index)) continue;
      let start = match.index;
      while (start > 0 && PEM_BODY_CHAR.test(text[start - 1] as string)) start--;
      spans.push({ start, end: match.index + match[0].length, rule: "private-key" });
    }
  }
}

/** Least Shannon entropy of a 40-character AWS secret access key sssf redacts without its name. */
export const AWS_SECRET_KEY_ENTROPY = 4.2;
const UPPER = /[A-Z]/;
const LOWER = /[a-z]/;
// A path (`docs/Web/API/…`) has slashes and seldom digits; 40 random characters have a digit but for
// 1 in 900, and more than 3 slashes but for about 1 in 400.
const SLASHES = /\//g;

/** Share of bytes that are printable ASCII (tab, newlines and space included). */
export function printableShare(bytes: Buffer): number {
  let printable = 0;
  for (const byte of bytes)
    if ((byte >= 0x20 && byte < 0x7f) || byte === 9 || byte === 10 || byte === 13) printable++;
  return bytes.length === 0 ? 0 : printable / bytes.length;
}

/**
 * Whether `word` (40 standard base64 characters standing alone) is an AWS secret access key: upper and
 * lower case, a digit, at most 3 slashes, random-looking (entropy), and not base64 of ordinary text
 * (which is decoded and scanned instead).
 */
export function looksLikeAwsSecretKey(word: string): boolean {
  return (
    UPPER.test(word) &&
    LOWER.test(word) &&
    DIGIT.test(word) &&
    (word.match(SLASHES)?.length ?? 0) <= 3 &&
    shannonEntropy(word) >= AWS_SECRET_KEY_ENTROPY &&
    printableShare(Buffer.from(word, "base64")) < 0.85
  );
}

const STANDARD = /[A-Za-z0-9+/]/;

/** Adds a span for each 40-character run of standard base64 that stands alone and looks like an AWS secret key. */
export function findAwsSecretKeys(text: string, runs: readonly Base64Run[], spans: SecretSpan[]): void {
  for (const run of runs) {
    if (run.end - run.start < 40) continue;
    // The standard parts of the run (`-` and `_` separate them).
    let start = run.start;
    for (let at = run.start; at <= run.end; at++) {
      if (at < run.end && STANDARD.test(text[at] as string)) continue;
      // Not a segment of a path or a host name (`mozilla.org/en-US/…`).
      const before = text[start - 1];
      if (at - start === 40 && text[at] !== "=" && text[at] !== "/" && before !== "." && before !== "/") {
        const word = text.slice(start, at);
        if (looksLikeAwsSecretKey(word)) spans.push({ start, end: at, rule: "aws-secret-key" });
      }
      start = at + 1;
    }
  }
}
