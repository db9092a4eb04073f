import { REDACTED, redactSecretValues } from "./secret-values.js";

export {
  isSecretVariableName,
  KNOWN_SECRET_VARIABLES,
  MIN_SECRET_VALUE_LENGTH,
  REDACTED,
  registerSecretEnv,
  registerSecretValues,
} from "./secret-values.js";

/** Case-insensitive pattern for a word without the `i` flag, which would also loosen the key formats. */
function anyCase(word: string): string {
  return [...word].map((letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`).join("");
}

// Each known token format as [its fixed start, the rest].
const KNOWN_TOKENS: readonly (readonly [string, string])[] = [
  ["sk-", "[A-Za-z0-9_-]{20,}"], // OpenAI sk-…, sk-proj-…, Anthropic sk-ant-…
  ["AIza", "[0-9A-Za-z_-]{35}"], // Google API keys
  ["gh[pousr]_", "[A-Za-z0-9]{30,}"], // GitHub classic tokens
  ["github_pat_", "[A-Za-z0-9_]{30,}"], // GitHub fine-grained tokens
  ["xox[abposr]-", "[A-Za-z0-9-]{10,}"], // Slack tokens
  ["(?:AKIA|ASIA)", "[0-9A-Z]{16}"], // AWS access key ids
];
const KNOWN_TOKEN = KNOWN_TOKENS.map(([start, rest]) => `${start}${rest}`).join("|");

const BEARER_WORD = "[Bb]earer";
const BEARER = String.raw`(${BEARER_WORD}\s+)[A-Za-z0-9._~+/=-]{8,}`;

const SECRET_NAMES = ["key", "token", "secret", "password"].map(anyCase);

// A name ending in KEY/TOKEN/SECRET/PASSWORD (the match starts at that suffix, so identifier runs cost no
// backtracking), its optional closing quote, `=` or `:`, then the value: an earlier redaction, an escaped
// JSON string, a JSON or shell string, or a bare word.
const NAMED = [
  `(${SECRET_NAMES.join("|")})`,
  String.raw`(\\?["']?)(\s*)([:=])(\s*)`,
  String.raw`(\[REDACTED\]|\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\\n]|\\.)*"|'[^'\n"\\]*'|[^\s"'\x60,;&}\]\\]+)`,
].join("");

// One alternation, so ordinary text is scanned once.
const SECRETS = new RegExp(`(${KNOWN_TOKEN})|${BEARER}|${NAMED}`, "g");

// Every match of SECRETS begins with one of these. Testing for them first spares a short text without
// any (a tool call's name, most output lines) the full pattern's replace: about 4 × faster on those;
// a long clean text costs about the same either way.
const MAYBE_SECRET = new RegExp(
  [...KNOWN_TOKENS.map(([start]) => start), BEARER_WORD, ...SECRET_NAMES].join("|"),
);

/** @internal The full pattern and its prefilter, for the test that the prefilter lets every match through. */
export const SECRET_PATTERNS = { full: SECRETS.source, prefilter: MAYBE_SECRET.source } as const;

const WORD_CHAR = /[A-Za-z0-9_]/;
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const NOT_SECRET_VALUE = /^(?:null|true|false|undefined|-?\d+(?:\.\d+)?)$/;
const DIGIT = /\d/;

function isWordChar(character: string | undefined): boolean {
  return character !== undefined && WORD_CHAR.test(character);
}

function redactNamedValue(
  match: string,
  name: string,
  nameQuote: string,
  separator: string,
  spaced: boolean,
  value: string,
  before: string | undefined,
): string {
  const head = match.slice(0, match.length - value.length);
  // Values that are not secrets by their name may still hold a known token (`key=sk-…`).
  const keep = (): string => `${head}${redactSecrets(value)}`;
  // A bare "key" is too common in ordinary JSON and prose ("the key: enter") to count as a secret name.
  if (name.length === 3 && (before === undefined || !NAME_CHAR.test(before))) return keep();
  if (value === REDACTED) return match;
  const quote = value.startsWith('\\"') ? '\\"' : value[0] === '"' || value[0] === "'" ? value[0] : "";
  if (quote !== "") return value.length === quote.length * 2 ? match : `${head}${quote}${REDACTED}${quote}`;
  if (NOT_SECRET_VALUE.test(value) || value.startsWith("$")) return keep();
  // `name = value` with spaces is code (`const token = getToken()`), not an env assignment.
  if (separator === "=" && spaced) return keep();
  // Unquoted `name: value` is YAML or a header, but also a type annotation (`token: string`): only values
  // that look generated (a digit, or long) count.
  if (separator === ":" && nameQuote === "" && !DIGIT.test(value) && value.length < 16) return keep();
  return `${head}${REDACTED}`;
}

function replaceSecret(match: string, ...groups: unknown[]): string {
  const [known, bearer, name, nameQuote, spaceBefore, separator, spaceAfter, value, offset, text] =
    groups as [
      string | undefined,
      string | undefined,
      string | undefined,
      string,
      string,
      string,
      string,
      string,
      number,
      string,
    ];
  const before = offset > 0 ? text[offset - 1] : undefined;
  if (known !== undefined) {
    // Stand-alone tokens only: not the tail of a longer word such as `task-…`.
    if (isWordChar(before) || (known.startsWith("A") && isWordChar(text[offset + match.length])))
      return match;
    return REDACTED;
  }
  if (bearer !== undefined) {
    // Not a stand-alone Bearer (`xBearer …`): its credential may still be a known token. It holds no
    // whitespace, so no Bearer either: the scan below goes one level deep.
    return isWordChar(before)
      ? `${bearer}${redactSecrets(match.slice(bearer.length))}`
      : `${bearer}${REDACTED}`;
  }
  if (name === undefined) return match;
  return redactNamedValue(match, name, nameQuote, separator, spaceBefore + spaceAfter !== "", value, before);
}

/**
 * Replaces likely secrets in `text` with `[REDACTED]`: first every registered secret value (the values of
 * secret-named environment variables of sssf and of the run's agents, `registerSecretValues`), then
 * provider API keys and tokens (OpenAI, Anthropic, Google, GitHub, Slack, AWS), `Bearer` credentials, and
 * values assigned to names ending in KEY, TOKEN, SECRET or PASSWORD (env assignments, JSON/YAML fields,
 * escaped JSON inside JSON strings). The one redaction of everything sssf stores or prints.
 * Contract: never throws; one regex pass for the values (skipped when none are registered) and one for
 * the patterns; returns `text` itself when nothing matched; idempotent.
 * @example
 * redactSecrets('ANTHROPIC_API_KEY=abc123 {"api_key": "xyz"}'); // 'ANTHROPIC_API_KEY=[REDACTED] {"api_key": "[REDACTED]"}'
 */
export function redactSecrets(text: string): string {
  const redacted = redactSecretValues(text);
  return MAYBE_SECRET.test(redacted) ? redacted.replace(SECRETS, replaceSecret) : redacted;
}
