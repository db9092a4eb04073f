import { GitleaksRules } from "./gitleaks-loader.js";
import { GITLEAKS_RULES } from "./gitleaks-rules.js";
import { findAwsSecretKeys, findPemFragments, inside, printableShare } from "./key-shapes.js";
import {
  findSecretValues,
  isPlaceholder,
  PLACEHOLDER_SOURCE,
  PLACEHOLDER_START,
  placeholder,
  type SecretSpan,
} from "./secret-values.js";
import { type Base64Run, KeywordScanner } from "./text-scan.js";

export {
  isPlaceholder,
  isSecretVariableName,
  KNOWN_SECRET_VARIABLES,
  MIN_SECRET_VALUE_LENGTH,
  PLACEHOLDER_SOURCE,
  placeholder,
  registerSecretEnv,
  registerSecretValues,
  type SecretSpan,
} from "./secret-values.js";

/** Case-insensitive pattern for a word without the `i` flag, which would also loosen the key formats. */
function anyCase(word: string): string {
  return [...word].map((letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`).join("");
}

// sssf's own shapes of provider tokens, as [its fixed start, the rest], looser than gitleaks' exact
// ones (which they back: a key cut short or of an older format is still caught); a match takes the id of
// gitleaks' rule for that family (`tokenRule`).
const KNOWN_TOKENS: readonly (readonly [string, string])[] = [
  ["sk-", "[A-Za-z0-9_-]{20,}"], // OpenAI sk-…, sk-proj-…, Anthropic sk-ant-…
  ["AIza", "[0-9A-Za-z_-]{35}"], // Google API keys
  ["gh[pousr]_", "[A-Za-z0-9]{30,}"], // GitHub classic tokens
  ["github_pat_", "[A-Za-z0-9_]{30,}"], // GitHub fine-grained tokens
  ["xox[abposr]-", "[A-Za-z0-9-]{10,}"], // Slack tokens
  ["(?:AKIA|ASIA)", "[0-9A-Z]{16}"], // AWS access key ids
];

/** The gitleaks rule id of the family a token of {@link KNOWN_TOKENS} belongs to. */
function tokenRule(token: string): string {
  if (token.startsWith("sk-ant-")) return "anthropic-api-key";
  if (token.startsWith("sk-")) return "openai-api-key";
  if (token.startsWith("AIza")) return "gcp-api-key";
  if (token.startsWith("github_pat_")) return "github-fine-grained-pat";
  if (token.startsWith("ghp_")) return "github-pat";
  if (token.startsWith("gho_")) return "github-oauth";
  if (token.startsWith("ghr_")) return "github-refresh-token";
  if (token.startsWith("gh")) return "github-app-token";
  if (token.startsWith("xoxb-")) return "slack-bot-token";
  if (token.startsWith("xoxp-")) return "slack-user-token";
  if (token.startsWith("xox")) return "slack-legacy-token";
  return "aws-access-token";
}
const KNOWN_TOKEN = KNOWN_TOKENS.map(([start, rest]) => `${start}${rest}`).join("|");

const BEARER_WORD = "[Bb]earer";
const BEARER = String.raw`(${BEARER_WORD}\s+)[A-Za-z0-9._~+/=-]{8,}`;

const SECRET_WORDS = ["key", "token", "secret", "password"];
const SECRET_NAMES = SECRET_WORDS.map(anyCase);

// A name ending in KEY/TOKEN/SECRET/PASSWORD (the match starts at that suffix, so identifier runs cost no
// backtracking), its optional closing quote, `=` or `:`, then the value: an earlier redaction, an escaped
// JSON string, a JSON or shell string, or a bare word.
const NAMED = [
  `(${SECRET_NAMES.join("|")})`,
  String.raw`(\\?["']?)(\s*)([:=])(\s*)`,
  `(${PLACEHOLDER_SOURCE}|${String.raw`\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\\n]|\\.)*"|'[^'\n"\\]*'|[^\s"'\x60,;&}\]\\]+`})`,
].join("");

// A password in a URL's user info (`https://oauth2:glpat-…@gitlab.com/…`, a git remote or a database URL).
const URL_START = String.raw`:\/\/`;
const URL_PASSWORD = String.raw`(${URL_START}[^\s\/?#@:]+:)[^\s\/?#@]+@`;

// One alternation, so ordinary text is scanned once.
const SECRETS = new RegExp(`(${KNOWN_TOKEN})|${BEARER}|${NAMED}|${URL_PASSWORD}`, "g");

// sssf's own keywords: every match of SECRETS, of a PEM fragment, begins with one of them (ASCII case
// folded, so they let through more, never less: `SK-` too).
const SSSF_KEYWORDS = [
  "sk-",
  "aiza",
  "ghp_",
  "gho_",
  "ghu_",
  "ghs_",
  "ghr_",
  "github_pat_",
  "xoxa-",
  "xoxb-",
  "xoxp-",
  "xoxo-",
  "xoxs-",
  "xoxr-",
  "akia",
  "asia",
  "bearer",
  ...SECRET_WORDS,
  URL_START.replaceAll("\\", ""),
];
const PEM_BEGIN_KEYWORD = "-----begin";
const PEM_END_KEYWORD = "-----end";

/** @internal The full pattern and sssf's keywords, for the test that the keywords let every match through. */
export const SECRET_PATTERNS = { full: SECRETS.source, keywords: SSSF_KEYWORDS } as const;

const WORD_CHAR = /[A-Za-z0-9_]/;
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const NOT_SECRET_VALUE = /^(?:null|true|false|undefined|-?\d+(?:\.\d+)?)$/;
const DIGIT = /\d/;

function isWordChar(character: string | undefined): boolean {
  return character !== undefined && WORD_CHAR.test(character);
}

/** The part of a named value that is the secret (inside its quotes), or null when it is not one. */
function namedValueSpan(
  name: string,
  nameQuote: string,
  separator: string,
  spaced: boolean,
  value: string,
  before: string | undefined,
): [number, number] | null {
  // A bare "key" is too common in ordinary JSON and prose ("the key: enter") to count as a secret name.
  if (name.length === 3 && (before === undefined || !NAME_CHAR.test(before))) return null;
  const quote = value.startsWith('\\"') ? '\\"' : value[0] === '"' || value[0] === "'" ? value[0] : "";
  if (quote !== "") {
    const inner = value.slice(quote.length, value.length - quote.length);
    return inner === "" || isPlaceholder(inner) ? null : [quote.length, value.length - quote.length];
  }
  if (isPlaceholder(value) || NOT_SECRET_VALUE.test(value) || value.startsWith("$")) return null;
  // `name = value` with spaces is code (`const token = getToken()`), not an env assignment.
  if (separator === "=" && spaced) return null;
  // Unquoted `name: value` is YAML or a header, but also a type annotation (`token: string`): only values
  // that look generated (a digit, or long) count.
  if (separator === ":" && nameQuote === "" && !DIGIT.test(value) && value.length < 16) return null;
  return [0, value.length];
}

// A known token anchored where the scan stands.
const KNOWN_AT = new RegExp(KNOWN_TOKEN, "y");

/**
 * Where the scan goes on after the pattern took `[at, end)` for a known token and refused it (part of a
 * longer word: `task-…`): at the first stand-alone token glued into it after a `-` (`task--sk-ant-…`,
 * `AIza-ghp_…`, possibly running past `end`), else at `end`. Each `-` is tried once: linear.
 */
function afterRefusedToken(text: string, at: number, end: number): number {
  for (let dash = text.indexOf("-", at); dash !== -1 && dash < end; dash = text.indexOf("-", dash + 1)) {
    KNOWN_AT.lastIndex = dash + 1;
    if (KNOWN_AT.test(text)) return dash + 1;
  }
  return end;
}

/** Adds the spans of sssf's own patterns (SECRETS), scanned left to right once (see `afterRefusedToken`). */
function findPatternSpans(text: string, spans: SecretSpan[]): void {
  SECRETS.lastIndex = 0;
  for (let found = SECRETS.exec(text); found !== null; found = SECRETS.exec(text)) {
    const [
      match,
      known,
      bearer,
      name,
      nameQuote = "",
      spaceBefore = "",
      separator = "",
      spaceAfter = "",
      value = "",
      userInfo,
    ] = found;
    const at = found.index;
    const end = at + match.length;
    const before = at > 0 ? text[at - 1] : undefined;
    if (known !== undefined) {
      // Stand-alone tokens only: not the tail of a longer word such as `task-…`.
      const refused = isWordChar(before) || (known.startsWith("A") && isWordChar(text[end]));
      if (refused) SECRETS.lastIndex = afterRefusedToken(text, at, end);
      else spans.push({ start: at, end, rule: tokenRule(known) });
    } else if (bearer !== undefined) {
      // A Bearer that is not a word of its own: its credential is scanned like any text.
      if (isWordChar(before)) SECRETS.lastIndex = at + bearer.length;
      else spans.push({ start: at + bearer.length, end, rule: "bearer" });
    } else if (userInfo !== undefined) {
      // A placeholder holds `:` too: a user name that is one (`://[redacted:github-pat]:pw@`) ends at its `]`.
      let start = at + userInfo.length;
      if (userInfo.includes(PLACEHOLDER_START)) {
        const close = text.indexOf("]", start);
        start = close !== -1 && close < end && text[close + 1] === ":" ? close + 2 : end;
      }
      if (start < end - 1 && !isPlaceholder(text.slice(start, end - 1))) {
        spans.push({ start, end: end - 1, rule: "url-password" });
      }
      // The user name may hold a token itself.
      SECRETS.lastIndex = at + 3;
    } else if (name !== undefined) {
      const spaced = spaceBefore + spaceAfter !== "";
      const inner = namedValueSpan(name, nameQuote, separator, spaced, value, before);
      const valueAt = end - value.length;
      if (inner !== null) {
        spans.push({ start: valueAt + inner[0], end: valueAt + inner[1], rule: "named-value" });
      }
      // The value may hold a token (`key=sk-…`), which names it better: scanned on.
      SECRETS.lastIndex = valueAt;
    }
  }
}

/** Longest encoded span decoded and scanned (a private key in base64 is about 4.5 KB). */
export const MAX_ENCODED_CHARS = 64 * 1024;
/** How deep encodings are unwrapped (base64 of URL-encoded text, and so on). */
const MAX_DEPTH = 2;
const LINE_BREAK = /^(?:\r?\n|\\r?\\n)/;
const HEX_ONLY = /^[0-9a-f]+$/;

/** The runs of `runs` joined across line breaks (base64 wrapped at a fixed width), with their `=` padding. */
function encodedBlocks(text: string, runs: readonly Base64Run[]): [number, number][] {
  const blocks: [number, number][] = [];
  for (let i = 0; i < runs.length; i++) {
    const first = runs[i] as Base64Run;
    let end = first.end;
    const width = first.end - first.start;
    // Wrapped base64 has lines of one width, a multiple of 4 (64 for PEM, 76 for MIME).
    while (width >= 40 && width % 4 === 0 && i + 1 < runs.length) {
      const next = runs[i + 1] as Base64Run;
      const gap = LINE_BREAK.exec(text.slice(end, next.start));
      if (gap === null || end + gap[0].length !== next.start || next.end - next.start > width) break;
      end = next.end;
      i++;
      if (next.end - next.start < width) break;
    }
    while (text[end] === "=" && end - first.start < MAX_ENCODED_CHARS) end++;
    blocks.push([first.start, end]);
  }
  return blocks;
}

/** Base64 blocks and URL-encoded spans that hide a secret: each whole span is one. */
function findEncoded(
  text: string,
  runs: readonly Base64Run[],
  percent: boolean,
  depth: number,
  spans: SecretSpan[],
): void {
  const found: SecretSpan[] = [];
  for (const [start, end] of encodedBlocks(text, runs)) {
    if (end - start > MAX_ENCODED_CHARS || inside(spans, start)) continue;
    const encoded = text.slice(start, end).replace(/\r|\n|\\r|\\n/g, "");
    if (HEX_ONLY.test(encoded)) continue;
    const bytes = Buffer.from(encoded, "base64");
    if (bytes.length < 12 || printableShare(bytes) < 0.85) continue;
    const inner = findSecretSpans(bytes.toString("utf8"), depth + 1);
    if (inner.length > 0) found.push({ start, end, rule: `base64:${strongest(inner).rule}` });
  }
  if (percent) {
    URL_ENCODED.lastIndex = 0;
    for (let match = URL_ENCODED.exec(text); match !== null; match = URL_ENCODED.exec(text)) {
      const start = match.index;
      const end = start + match[0].length;
      if (end - start > MAX_ENCODED_CHARS || inside(spans, start)) continue;
      let decoded: string;
      try {
        decoded = decodeURIComponent(match[0].replaceAll("+", " "));
      } catch {
        continue;
      }
      const inner = findSecretSpans(decoded, depth + 1);
      if (inner.length > 0) found.push({ start, end, rule: `url-encoded:${strongest(inner).rule}` });
    }
  }
  spans.push(...found);
}

// A run of URL characters holding at least one %XX escape.
const URL_ENCODED = /[A-Za-z0-9._~!*'()+/%-]*%[0-9A-Fa-f]{2}[A-Za-z0-9._~!*'()+/%-]*/g;

/** How strongly a rule's id names what it found: a registered value first, a named value last. */
function rank(rule: string): number {
  const base = rule.slice(rule.lastIndexOf(":") + 1);
  if (rule.includes("env:") || base === "secret-value") return 0;
  if (base === "named-value") return 3;
  if (base === "bearer" || base === "url-password") return 2;
  return 1;
}

function strongest(spans: readonly SecretSpan[]): SecretSpan {
  return spans.reduce((best, span) => (rank(span.rule) < rank(best.rule) ? span : best));
}

let rules: {
  gitleaks: GitleaksRules;
  scanner: KeywordScanner;
  sssf: number;
  pemBegin: number;
  pemEnd: number;
} | null = null;

/** The rule set and the prefilter, built on first use (not at load: a CLI start that redacts nothing pays nothing). */
function ruleSet() {
  if (rules === null) {
    const gitleaks = new GitleaksRules(GITLEAKS_RULES);
    const own = [...SSSF_KEYWORDS, PEM_BEGIN_KEYWORD, PEM_END_KEYWORD];
    const sssf = gitleaks.keywords.length;
    rules = {
      gitleaks,
      scanner: new KeywordScanner([...gitleaks.keywords, ...own]),
      sssf,
      pemBegin: sssf + own.indexOf(PEM_BEGIN_KEYWORD),
      pemEnd: sssf + own.indexOf(PEM_END_KEYWORD),
    };
  }
  return rules;
}

/**
 * Every secret in `text`, as spans (possibly overlapping, in no particular order): registered secret
 * values, gitleaks' rules, sssf's own patterns, AWS secret keys standing alone, pieces of private key
 * blocks, and base64 or URL-encoded spans that decode to text holding any of these.
 * Contract: never throws; one pass over the text (text-scan.ts) decides which rules run at all.
 */
export function findSecretSpans(text: string, depth = 0): SecretSpan[] {
  const spans: SecretSpan[] = [];
  findSecretValues(text, spans);
  const { gitleaks, scanner, sssf, pemBegin, pemEnd } = ruleSet();
  const scan = scanner.scan(text);
  let own = false;
  const theirs: number[] = [];
  for (const id of scan.keywords) {
    if (id < sssf) theirs.push(id);
    else own = true;
  }
  if (theirs.length > 0) gitleaks.find(text, theirs, spans);
  if (own) findPatternSpans(text, spans);
  const begin = scan.keywords.has(pemBegin);
  const end = scan.keywords.has(pemEnd);
  if (begin || end) findPemFragments(text, spans, begin, end);
  if (scan.runs.length > 0) findAwsSecretKeys(text, scan.runs, spans);
  if (depth < MAX_DEPTH && (scan.runs.length > 0 || scan.percentEscape)) {
    findEncoded(text, scan.runs, scan.percentEscape, depth, spans);
  }
  return spans;
}

/**
 * `text` with `spans` replaced by their placeholders; overlapping spans become one, named by the
 * strongest rule among them (a registered value, then a rule for a token's shape, then a Bearer or URL
 * password, then a named value). Never throws.
 */
export function renderRedacted(text: string, spans: readonly SecretSpan[]): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let from = 0;
  let current: SecretSpan | null = null;
  const close = (span: SecretSpan) => {
    out += text.slice(from, span.start) + placeholder(span.rule);
    from = span.end;
  };
  for (const span of sorted) {
    if (span.end <= span.start) continue;
    if (current !== null && span.start < current.end) {
      current = {
        start: current.start,
        end: Math.max(current.end, span.end),
        rule: rank(span.rule) < rank(current.rule) ? span.rule : current.rule,
      };
      continue;
    }
    if (current !== null) close(current);
    current = { ...span };
  }
  if (current !== null) close(current);
  return out + text.slice(from);
}

/**
 * Replaces likely secrets in `text` with a placeholder naming the rule that found them
 * (`[redacted:jwt]`, `[redacted:env:OPENAI_API_KEY]`; the list is in docs/trace.md, "Secrets"): the
 * values of secret-named environment variables of sssf and of the run's agents (`registerSecretValues`),
 * gitleaks' rule set (provider keys and tokens, JWTs, private key blocks…), sssf's own shapes of provider
 * tokens, `Bearer` credentials, values assigned to names ending in KEY, TOKEN, SECRET or PASSWORD (env
 * assignments, JSON/YAML fields, escaped JSON inside JSON), the password of a URL's user info, AWS
 * secret access keys standing alone, the pieces of a cut private key block, and base64 or URL-encoded
 * spans that decode to any of these. The one redaction of everything sssf stores or prints.
 * Contract: never throws; returns `text` itself when nothing matched; idempotent.
 * @example
 * redactSecrets('ANTHROPIC_API_KEY=abc123 {"api_key": "xyz"}'); // 'ANTHROPIC_API_KEY=[redacted:named-value] {"api_key": "[redacted:named-value]"}'
 */
export function redactSecrets(text: string): string {
  const spans = findSecretSpans(text);
  return spans.length === 0 ? text : renderRedacted(text, spans);
}
