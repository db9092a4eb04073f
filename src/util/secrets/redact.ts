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

const SECRET_WORDS = ["key", "token", "secret", "password"];
const SECRET_NAMES = SECRET_WORDS.map(anyCase);

// A name ending in KEY/TOKEN/SECRET/PASSWORD (the match starts at that suffix, so identifier runs cost no
// backtracking), its optional closing quote, `=` or `:`, then the value: an earlier redaction, an escaped
// JSON string, a JSON or shell string, or a bare word.
const NAMED = [
  `(${SECRET_NAMES.join("|")})`,
  String.raw`(\\?["']?)(\s*)([:=])(\s*)`,
  String.raw`(\[REDACTED\]|\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\\n]|\\.)*"|'[^'\n"\\]*'|[^\s"'\x60,;&}\]\\]+)`,
].join("");

// A password in a URL's user info (`https://oauth2:glpat-…@gitlab.com/…`, a git remote or a database URL).
const URL_START = String.raw`:\/\/`;
const URL_PASSWORD = String.raw`(${URL_START}[^\s\/?#@:]+:)[^\s\/?#@]+@`;

// One alternation, so ordinary text is scanned once.
const SECRETS = new RegExp(`(${KNOWN_TOKEN})|${BEARER}|${NAMED}|${URL_PASSWORD}`, "g");

// Every match of SECRETS begins with one of these. Testing for them first spares a short text without
// any (a tool call's name, most output lines) the full pattern's replace: about 4 × faster on those;
// a long clean text costs about the same either way. Case-insensitive as a whole (plain words, not
// `[kK][eE][yY]`): V8 scans that twice as fast (0.14 against 0.3 µs a text: a tool call line and its payload),
// and it lets through more, never less (`SK-` too), so what the full pattern redacts is the same.
const MAYBE_SECRET_STARTS = [...KNOWN_TOKENS.map(([start]) => start), "bearer", ...SECRET_WORDS, URL_START];
const MAYBE_SECRET = new RegExp(MAYBE_SECRET_STARTS.join("|"), "i");

/** @internal The full pattern and its prefilter, for the test that the prefilter lets every match through. */
export const SECRET_PATTERNS = {
  full: SECRETS.source,
  prefilter: MAYBE_SECRET.source,
  prefilterFlags: MAYBE_SECRET.flags,
} as const;

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

/** The patterns' replacement of one match, or null when it is not a secret after all. */
function replacement(found: RegExpExecArray, text: string): string | null {
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
  const before = at > 0 ? text[at - 1] : undefined;
  if (known !== undefined) {
    // Stand-alone tokens only: not the tail of a longer word such as `task-…`.
    const refused = isWordChar(before) || (known.startsWith("A") && isWordChar(text[at + match.length]));
    return refused ? null : REDACTED;
  }
  if (bearer !== undefined) return isWordChar(before) ? null : `${bearer}${REDACTED}`;
  // The user name may hold a token itself (no `://` in it: one level deep).
  if (userInfo !== undefined) return `${redactSecrets(userInfo)}${REDACTED}@`;
  if (name === undefined) return null;
  return redactNamedValue(match, name, nameQuote, separator, spaceBefore + spaceAfter !== "", value, before);
}

/** `text` with the patterns' matches replaced, scanned left to right once (see `afterRefusedToken`). */
function redactPatterns(text: string): string {
  let out = "";
  let from = 0;
  SECRETS.lastIndex = 0;
  for (let found = SECRETS.exec(text); found !== null; found = SECRETS.exec(text)) {
    const at = found.index;
    const end = at + found[0].length;
    // May redact recursively (a named value's own tokens), which moves SECRETS.lastIndex: set after.
    const replaced = replacement(found, text);
    if (replaced !== null) {
      out += text.slice(from, at) + replaced;
      from = end;
      SECRETS.lastIndex = end;
    } else if (found[1] !== undefined) SECRETS.lastIndex = afterRefusedToken(text, at, end);
    // A Bearer that is not a word of its own: its credential is scanned like any text.
    else if (found[2] !== undefined) SECRETS.lastIndex = at + found[2].length;
    else SECRETS.lastIndex = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Replaces likely secrets in `text` with `[REDACTED]`: first every registered secret value (the values of
 * secret-named environment variables of sssf and of the run's agents, `registerSecretValues`), then
 * provider API keys and tokens (OpenAI, Anthropic, Google, GitHub, Slack, AWS), `Bearer` credentials, and
 * values assigned to names ending in KEY, TOKEN, SECRET or PASSWORD (env assignments, JSON/YAML fields,
 * escaped JSON inside JSON strings), and the password of a URL's user info. The one redaction of everything sssf stores or prints.
 * Contract: never throws; one regex pass for the values (skipped when none are registered) and one for
 * the patterns; returns `text` itself when nothing matched; idempotent.
 * @example
 * redactSecrets('ANTHROPIC_API_KEY=abc123 {"api_key": "xyz"}'); // 'ANTHROPIC_API_KEY=[REDACTED] {"api_key": "[REDACTED]"}'
 */
export function redactSecrets(text: string): string {
  const redacted = redactSecretValues(text);
  return MAYBE_SECRET.test(redacted) ? redactPatterns(redacted) : redacted;
}
