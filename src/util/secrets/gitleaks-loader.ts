/**
 * Turns gitleaks' rules (data in gitleaks-rules.json, in gitleaks' own Go RE2 syntax) into JavaScript
 * detectors, and finds their secrets in a text the way gitleaks does: a rule runs only when one of its
 * keywords is in the text; its secret is its `secretGroup`, else its first non-empty capture group,
 * else the whole match; a secret below the rule's Shannon entropy, or allowed by the global or the
 * rule's allowlists (regexes, stopwords), is not one. See docs/decisions/2026-12-06-secret-rules.md.
 */
import { convertGoRegex } from "./go-regex.js";

/** One allowlist of a rule, as gitleaks.toml writes it. */
export interface GitleaksAllowlist {
  regexTarget?: string;
  regexes?: string[];
  stopwords?: string[];
  condition?: string;
  paths?: string[];
}

/** One rule, as gitleaks.toml writes it (descriptions left out). */
export interface GitleaksRule {
  id: string;
  regex?: string;
  secretGroup?: number;
  entropy?: number;
  keywords?: string[];
  path?: string;
  allowlists?: GitleaksAllowlist[];
}

/** The vendored rule set. */
export interface GitleaksData {
  allowlist: { regexes: string[]; stopwords: string[] };
  rules: GitleaksRule[];
}

/**
 * Rules left out, and why: `generic-api-key` (any value assigned to a name holding key/token/auth…)
 * is sssf's own named-value rule (redact.ts), tuned to agent transcripts, where gitleaks' version,
 * written for source files, both redacts ordinary code and costs a scan at every keyword; rules with
 * a `path` apply to files of one kind only, and sssf redacts text that has no path.
 */
export const LEFT_OUT_RULES: ReadonlySet<string> = new Set(["generic-api-key"]);

/** A found secret: `[start, end)` of the text, and the id of the rule that found it. */
export interface SecretSpan {
  start: number;
  end: number;
  rule: string;
}

// gitleaks ends many secrets with "a quote, whitespace, `;`, an escaped newline or the end": a
// lookahead here (the next secret may start right there), and `,`, `)`, `]`, `}`, `>`, `|`, `&` too: a
// key in an argument list or a JSON array is still a key.
const GO_TERMINATOR = String.raw`(?:[\x60'"\s;]|\\[nr]|$)`;
const JS_TERMINATOR = String.raw`(?=[\x60'"\s;,)\]}>|&]|\\[nrt]|$)`;
// gitleaks' "semi-generic" rules start with up to 50 characters of the name before the keyword; the
// secret is never in them, and in a backtracking engine they cost 50 tries at every position.
const NAME_PREFIX = /^(\(\?i\))?\[\\w\.-\]\{0,\d+\}\?/;
/** A compiled rule. */
export interface CompiledRule {
  id: string;
  regex: RegExp;
  /** The pattern began with `\b`, checked by hand (see {@link startsWord}) so the regex keeps its literal start. */
  leadingBoundary: boolean;
  secretGroup: number;
  entropy: number;
  allowlists: readonly CompiledAllowlist[];
}

interface CompiledAllowlist {
  target: "secret" | "match" | "line";
  all: boolean;
  regexes: readonly RegExp[];
  stopwords: readonly string[];
}

/** The JavaScript regex of a gitleaks rule's pattern (global, with match indices), and its leading `\b`. */
export function ruleRegex(pattern: string): { regex: RegExp; leadingBoundary: boolean } {
  let go = pattern.replace(NAME_PREFIX, "$1").split(GO_TERMINATOR).join(JS_TERMINATOR);
  let flags = "gd";
  if (go.startsWith("(?i)") && !go.includes("(?-i")) {
    go = go.slice(4);
    flags = "gdi";
  }
  let js = convertGoRegex(go);
  const leadingBoundary = js.startsWith("\\b");
  if (leadingBoundary) js = js.slice(2);
  return { regex: new RegExp(js, flags), leadingBoundary };
}

const WORD = /\w/;

/**
 * Whether a match at `at` starts a word (`\b`: a word character after a non-word one, or the reverse), or
 * follows an escape of JSON text (`\nAIza…`).
 */
export function startsWord(text: string, at: number): boolean {
  const before = text[at - 1];
  if (before === undefined) return true;
  if (WORD.test(before) !== WORD.test(text[at] ?? "")) return true;
  return text[at - 2] === "\\" && (before === "n" || before === "r" || before === "t");
}

const anchoredRegex = (pattern: string): RegExp => new RegExp(convertGoRegex(pattern));

/** Compiles one allowlist; null when it cannot apply to text without a path (`paths` with AND). */
function compileAllowlist(allowlist: GitleaksAllowlist): CompiledAllowlist | null {
  const all = allowlist.condition === "AND";
  if (allowlist.paths !== undefined && all) return null;
  const regexes = (allowlist.regexes ?? []).map(anchoredRegex);
  const stopwords = allowlist.stopwords ?? [];
  if (regexes.length === 0 && stopwords.length === 0) return null;
  const target =
    allowlist.regexTarget === "match" || allowlist.regexTarget === "line" ? allowlist.regexTarget : "secret";
  return { target, all, regexes, stopwords };
}

/** Whether sssf uses `rule` (see {@link LEFT_OUT_RULES}). */
export function usesRule(rule: GitleaksRule): rule is GitleaksRule & { regex: string } {
  return rule.regex !== undefined && rule.path === undefined && !LEFT_OUT_RULES.has(rule.id);
}

/** Compiles a rule sssf uses. Throws on a pattern it cannot convert. */
export function compileRule(rule: GitleaksRule & { regex: string }): CompiledRule {
  const { regex, leadingBoundary } = ruleRegex(rule.regex);
  return {
    id: rule.id,
    regex,
    leadingBoundary,
    secretGroup: rule.secretGroup ?? 0,
    entropy: rule.entropy ?? 0,
    allowlists: (rule.allowlists ?? []).map(compileAllowlist).filter((list) => list !== null),
  };
}

/** Shannon entropy of `text` in bits per character, as gitleaks computes it. */
export function shannonEntropy(text: string): number {
  if (text === "") return 0;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  const length = [...text].length;
  for (const count of counts.values()) {
    const p = count / length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const to = text.indexOf("\n", end);
  return text.slice(from, to === -1 ? text.length : to);
}

function allowedBy(list: CompiledAllowlist, secret: string, match: string, line: () => string): boolean {
  const target = list.target === "secret" ? secret : list.target === "match" ? match : line();
  const checks: boolean[] = [];
  if (list.regexes.length > 0) checks.push(list.regexes.some((regex) => regex.test(target)));
  if (list.stopwords.length > 0) {
    const lower = secret.toLowerCase();
    checks.push(list.stopwords.some((word) => lower.includes(word)));
  }
  return list.all ? checks.every(Boolean) : checks.some(Boolean);
}

/** A rule sssf uses, compiled when first needed. */
interface LazyRule {
  data: GitleaksRule & { regex: string };
  compiled: CompiledRule | null;
}

/**
 * The rule set: its keywords (for one shared prefilter pass, text-scan.ts) and the rules, each compiled
 * the first time its keyword is seen (compiling all 216 costs about 100 ms; a run sees a few).
 */
export class GitleaksRules {
  /** Every distinct keyword, lower case; a keyword's id is its index here. */
  readonly keywords: readonly string[];
  readonly #byKeyword: LazyRule[][];
  readonly #always: readonly LazyRule[];
  readonly #global: CompiledAllowlist;

  constructor(data: GitleaksData) {
    const rules: LazyRule[] = data.rules.filter(usesRule).map((rule) => ({ data: rule, compiled: null }));
    const ids = new Map<string, number>();
    const byKeyword: LazyRule[][] = [];
    for (const rule of rules) {
      for (const raw of rule.data.keywords ?? []) {
        const keyword = raw.toLowerCase();
        let id = ids.get(keyword);
        if (id === undefined) {
          id = byKeyword.length;
          ids.set(keyword, id);
          byKeyword.push([]);
        }
        byKeyword[id]?.push(rule);
      }
    }
    this.keywords = [...ids.keys()];
    this.#byKeyword = byKeyword;
    this.#always = rules.filter((rule) => (rule.data.keywords ?? []).length === 0);
    const global = compileAllowlist(data.allowlist);
    this.#global = global ?? { target: "secret", all: false, regexes: [], stopwords: [] };
  }

  /** Every rule sssf uses, compiled (for tests). */
  compileAll(): CompiledRule[] {
    const all = new Set([...this.#always, ...this.#byKeyword.flat()]);
    return [...all].map((rule) => this.#compiled(rule));
  }

  /**
   * Every secret the rules whose keywords are `found` (ids into {@link keywords}) find in `text`, in no
   * particular order (spans may overlap).
   */
  find(text: string, found: Iterable<number>, spans: SecretSpan[] = []): SecretSpan[] {
    const rules = new Set<LazyRule>(this.#always);
    for (const id of found) for (const rule of this.#byKeyword[id] ?? []) rules.add(rule);
    for (const rule of rules) this.#findWith(this.#compiled(rule), text, spans);
    return spans;
  }

  #compiled(rule: LazyRule): CompiledRule {
    rule.compiled ??= compileRule(rule.data);
    return rule.compiled;
  }

  #findWith(rule: CompiledRule, text: string, spans: SecretSpan[]): void {
    const regex = rule.regex;
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match[0] === "" || (rule.leadingBoundary && !startsWord(text, match.index))) {
        regex.lastIndex = match.index + 1;
        continue;
      }
      let group = rule.secretGroup;
      if (group === 0)
        group = match.findIndex((value, index) => index > 0 && value !== undefined && value !== "");
      const indices = match.indices?.[Math.max(group, 0)];
      if (indices === undefined) continue;
      const [start, end] = indices;
      const secret = text.slice(start, end);
      if (rule.entropy > 0 && shannonEntropy(secret) < rule.entropy) continue;
      const line = () => lineAround(text, match.index, match.index + match[0].length);
      if (allowedBy(this.#global, secret, match[0], line)) continue;
      if (rule.allowlists.some((list) => allowedBy(list, secret, match[0], line))) continue;
      spans.push({ start, end, rule: rule.id });
    }
  }
}
