/**
 * Turns zod issues into `ConfigProblem`s that name the wire path (`agents[2].writes`), the value
 * received and the valid choices, and suggests the nearest key for a misspelt one.
 */
import { z } from "zod";
import type { ConfigProblem } from "../errors/config-error.js";

type PathSegment = PropertyKey;

/** `["agents", 2, "writes"]` → `agents[2].writes`. Never throws. */
export function formatConfigPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z0-9_-]+$/.test(segment))
      out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** A short, user-facing rendering of a YAML value for "got …". Never throws. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string")
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}

const TYPE_NAMES: Record<string, string> = {
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
};

/**
 * Per-parse zod error map: the fallback wording for issues whose schema carries no message of its own.
 * Never throws.
 */
export function describeConfigIssue(issue: z.core.$ZodRawIssue): string {
  const got = describeValue(issue.input);
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "required";
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}, got ${got}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => String(v)).join(", ")}, got ${got}`;
    case "too_small":
      if (issue.origin === "string") return "must not be empty";
      if (issue.origin === "array") return `expected at least ${issue.minimum} item(s)`;
      return `expected ${issue.inclusive ? "at least" : "more than"} ${issue.minimum}, got ${got}`;
    case "too_big":
      if (issue.origin === "array") return `expected at most ${issue.maximum} item(s)`;
      return `expected ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}, got ${got}`;
    case "invalid_format":
      return `invalid ${issue.format}, got ${got}`;
    case "invalid_key":
      // A record key failed its own schema, whose message already says what was expected.
      return issue.issues.map((inner) => inner.message).join("; ");
    default:
      return `invalid value, got ${got}`;
  }
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known key a typo most likely meant (`colour` → `color`, `codingAgent` → `coding_agent`), if any. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  // camelCase and kebab-case spellings of a snake_case key count as exact.
  const snake = unknown
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase();
  if (known.includes(snake)) return snake;
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = levenshtein(snake, key);
    if (!best || distance < best.distance) best = { key, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(snake.length, best.key.length) / 3));
  return best.distance <= allowed ? best.key : undefined;
}

/** Follows a wire path through wrappers, lists, records and objects to the schema at its end. */
function schemaAt(root: z.ZodType, path: readonly PathSegment[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = root;
  let index = 0;
  while (current) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault
    ) {
      current = current.unwrap() as z.ZodType;
      continue;
    }
    if (index === path.length) return current;
    const segment = path[index++];
    if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else if (current instanceof z.ZodObject && typeof segment === "string")
      current = current.shape[segment] as z.ZodType | undefined;
    else return undefined;
  }
  return undefined;
}

/**
 * One problem per zod issue, and one per unknown key (zod groups them per object).
 * `root` is the schema that produced the issues, used to list the keys a typo could have meant.
 */
export function issuesToProblems(root: z.ZodType, issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code !== "unrecognized_keys") {
      problems.push({ path: formatConfigPath(issue.path), message: issue.message });
      continue;
    }
    const owner = schemaAt(root, issue.path);
    const known = owner instanceof z.ZodObject ? Object.keys(owner.shape) : [];
    for (const key of issue.keys) {
      const suggestion = suggestKey(key, known);
      problems.push({
        path: formatConfigPath([...issue.path, key]),
        message: suggestion ? `unknown key (did you mean "${suggestion}"?)` : "unknown key",
      });
    }
  }
  return problems;
}
