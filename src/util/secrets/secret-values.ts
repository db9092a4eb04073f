/**
 * The process-wide registry of secret values: the values of secret-named environment variables (sssf's
 * own environment at load, each run's agent and suite `env` when the run starts), redacted as literal
 * text wherever they appear, whatever their shape. See docs/trace.md, "Secrets".
 */

/** How every placeholder starts: `[redacted:<rule>]`. */
export const PLACEHOLDER_START = "[redacted:";

/**
 * What a secret found by `rule` is replaced with: `[redacted:jwt]`, `[redacted:env:OPENAI_API_KEY]`.
 * @example placeholder("jwt"); // "[redacted:jwt]"
 */
export function placeholder(rule: string): string {
  return `${PLACEHOLDER_START}${rule}]`;
}

/** A whole placeholder (the rule ids of docs/trace.md: letters, digits, `-`, `_`, `.` and `:`). */
export const PLACEHOLDER_SOURCE = String.raw`\[redacted:[A-Za-z0-9_.:-]+\]`;
const PLACEHOLDER_ONLY = new RegExp(`^${PLACEHOLDER_SOURCE}$`);

/** Whether `text` is one placeholder, nothing else. */
export function isPlaceholder(text: string): boolean {
  return PLACEHOLDER_ONLY.test(text);
}

/** A found secret: `[start, end)` of the text, and the id of the rule that found it. */
export interface SecretSpan {
  start: number;
  end: number;
  rule: string;
}

/**
 * Values shorter than this many characters are never registered, so `FOO_KEY=1` does not redact every
 * "1" (the token patterns of `redactSecrets` still apply to them).
 */
export const MIN_SECRET_VALUE_LENGTH = 8;

/**
 * Provider variables that hold credentials. Every one also matches the name rule of
 * {@link isSecretVariableName}; the list documents them and keeps them secret should the rule change.
 */
export const KNOWN_SECRET_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "OPENROUTER_API_KEY",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "HF_TOKEN",
  "NPM_TOKEN",
  "NODE_AUTH_TOKEN",
];

const KNOWN = new Set(KNOWN_SECRET_VARIABLES);
// `*_KEY`, `*_API_KEY`, `*_ACCESS_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_PASSWD`, `*_PASS`,
// `*_PASSPHRASE` (or the bare word), any case. Not `*PASS*`: GIT_ASKPASS and SSH_ASKPASS hold paths.
const SECRET_SUFFIX = /(?:^|_)(?:KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PASSPHRASE)$/i;
// camelCase names (`npm_config__authToken`, `apiKey`).
const CAMEL_SUFFIX = /[a-z0-9](?:Key|Token|Secret|Password|Passwd|Passphrase)$/;

/**
 * True when an environment variable of this name holds a secret: a known provider variable, or a name
 * ending in `_KEY`, `_TOKEN`, `_SECRET`, `_PASSWORD`, `_PASSWD`, `_PASS` or `_PASSPHRASE` (any case; the
 * bare words too), or a camelCase `…Key`/`…Token`/`…Secret`/`…Password`. Never throws.
 * @example isSecretVariableName("OPENAI_API_KEY"); // true
 * @example isSecretVariableName("AWS_ACCESS_KEY_ID"); // false: an id, not the secret
 */
export function isSecretVariableName(name: string): boolean {
  return KNOWN.has(name) || SECRET_SUFFIX.test(name) || CAMEL_SUFFIX.test(name);
}

/** Each registered value and the rule id of its placeholder (`env:NAME`, or `secret-value`). */
const values = new Map<string, string>();
let matchers: { any: RegExp; all: RegExp } | null = null;

function add(value: string, rule: string): void {
  // A value inside a placeholder's own text would make redaction grow on every pass.
  if (value.length < MIN_SECRET_VALUE_LENGTH || PLACEHOLDER_START.includes(value) || values.has(value))
    return;
  values.set(value, rule);
  matchers = null;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Adds `candidates` to the process-wide registry: from now on {@link redactSecretValues} (and so every
 * `redactSecrets`) replaces each of them wherever it appears. Each value is registered as given, trimmed,
 * and as it reads inside a JSON string (quotes and backslashes escaped). Values shorter than
 * {@link MIN_SECRET_VALUE_LENGTH} are ignored. Never throws; registering a value twice is harmless.
 * @example registerSecretValues(["s3cr3t-value-123"]);
 */
export function registerSecretValues(candidates: Iterable<string>, name?: string): void {
  const rule = name === undefined ? "secret-value" : `env:${name}`;
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue;
    for (const value of new Set([candidate, candidate.trim()])) {
      add(value, rule);
      add(JSON.stringify(value).slice(1, -1), rule);
    }
  }
}

/**
 * Registers the values of the secret-named variables of `env` ({@link isSecretVariableName}). Never throws.
 * @example registerSecretEnv(config.agents[0].env);
 */
export function registerSecretEnv(env: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretVariableName(name)) registerSecretValues([value], name);
  }
}

function compiled(): { any: RegExp; all: RegExp } {
  if (matchers === null) {
    // Longest first, so a value that contains another is replaced whole.
    const source = [...values.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|");
    matchers = { any: new RegExp(source), all: new RegExp(source, "g") };
  }
  return matchers;
}

/**
 * Adds a span for every registered secret value in `text` to `spans` (its rule `env:NAME`). One
 * precompiled regex (an alternation of the literal values): a test first, the scan only when it matched.
 * Contract: never throws.
 */
export function findSecretValues(text: string, spans: SecretSpan[]): void {
  if (values.size === 0 || text.length < MIN_SECRET_VALUE_LENGTH) return;
  const { any, all } = compiled();
  if (!any.test(text)) return;
  all.lastIndex = 0;
  for (let match = all.exec(text); match !== null; match = all.exec(text)) {
    spans.push({
      start: match.index,
      end: match.index + match[0].length,
      rule: values.get(match[0]) ?? "secret-value",
    });
  }
}

registerSecretEnv(process.env);
