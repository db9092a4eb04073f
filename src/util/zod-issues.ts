/**
 * The one translator of zod issues into problems, one per wrong, missing or unknown field, in one of
 * two wordings: `agent` for an agent fixing its JSON envelope (code-like paths, JSON kinds, "remove
 * it"), `config` for a person fixing a YAML file (wire paths, "a list", "did you mean"). Depends on zod
 * only.
 */
import { z } from "zod";
import { shortenText } from "./shorten-text.js";
import { suggestKey } from "./suggest-key.js";

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** Who reads the problems: an agent correcting its envelope, or a person editing a config file. */
export type ZodIssueWording = "agent" | "config";

/** One wrong, missing or unknown field; `path` is "" when the problem concerns the whole value. */
export interface ZodIssueProblem {
  path: string;
  message: string;
}

/**
 * What the issues came from. `agent`: the validated `value`, looked up to tell a missing field from a
 * wrong one and to name what was received. `config`: the `schema` that produced the issues (parsed
 * with `{ reportInput: true, error: configIssueMessage }`, so each message is final), used to list
 * the keys a typo could have meant.
 */
export type ZodIssueSource = { wording: "agent"; value: unknown } | { wording: "config"; schema: z.ZodType };

type AgentSource = Extract<ZodIssueSource, { wording: "agent" }>;
type ConfigSource = Extract<ZodIssueSource, { wording: "config" }>;

/** How one wording renders paths, unknown keys and every other issue. */
interface Wording<S extends ZodIssueSource> {
  path(path: Path): string;
  unknownKey(key: string, owner: Path, source: S): string;
  describe(issue: Issue, path: Path, source: S): ZodIssueProblem[];
}

/**
 * One problem per zod issue (a union's closest branch may give several, in the agent wording) and one
 * per unknown key (zod groups them per object), worded for `source.wording`. Never throws.
 * @example zodIssueProblems(parsed.error.issues, { wording: "agent", value: json })
 */
export function zodIssueProblems(issues: readonly Issue[], source: ZodIssueSource): ZodIssueProblem[] {
  return source.wording === "agent"
    ? translate(issues, source, AGENT_WORDING, [])
    : translate(issues, source, CONFIG_WORDING, []);
}

function translate<S extends ZodIssueSource>(
  issues: readonly Issue[],
  source: S,
  wording: Wording<S>,
  base: Path,
): ZodIssueProblem[] {
  return issues.flatMap((issue) => {
    const path = [...base, ...issue.path];
    if (issue.code !== "unrecognized_keys") return wording.describe(issue, path, source);
    return issue.keys.map((key) => ({
      path: wording.path([...path, key]),
      message: wording.unknownKey(key, path, source),
    }));
  });
}

// The agent wording: the issues are read against the value the agent sent.

const AGENT_WORDING: Wording<AgentSource> = {
  /** `findings[0].met`, `["odd key"]`. */
  path(path) {
    let out = "";
    for (const key of path) {
      if (typeof key === "number") out += `[${key}]`;
      else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === "" ? key : `.${key}`;
      else out += `[${typeof key === "string" ? JSON.stringify(key) : String(key)}]`;
    }
    return out;
  },
  unknownKey: () => "unexpected field; remove it",
  describe(issue, path, source) {
    const found = lookup(source.value, path);
    const problem = (message: string): ZodIssueProblem[] => [{ path: AGENT_WORDING.path(path), message }];
    const missing = (expected: string) => problem(`required field is missing (expected ${expected})`);
    switch (issue.code) {
      case "invalid_type": {
        const expected = typeName(issue.expected);
        if (!found.present) return missing(expected);
        return problem(`expected ${expected}, got ${received(found.value, issue.expected)}`);
      }
      case "invalid_value": {
        const allowed = issue.values.map(literal).join(" | ");
        if (!found.present) return missing(allowed);
        if (issue.values.length === 1) return problem(`expected ${allowed}, got ${preview(found.value)}`);
        return problem(`invalid value ${preview(found.value)}: expected one of ${allowed}`);
      }
      case "invalid_union": {
        if (issue.errors.length === 0)
          return problem("matches more than one allowed shape; make it match exactly one");
        // A branch whose issues all sit deeper matched the shape; its nested problems are the useful ones.
        const closest = issue.errors.find((branch) => branch.every((inner) => inner.path.length > 0));
        if (found.present && closest) return translate(closest, source, AGENT_WORDING, path);
        const alternatives = unionAlternatives(issue.errors);
        if (!found.present) return missing(alternatives);
        return problem(`expected ${alternatives}, got ${received(found.value, "")}`);
      }
      case "too_small":
        return problem(
          `${bound("at least", ">", issue.origin, issue.minimum, issue.inclusive)}, got ${size(found.value)}`,
        );
      case "too_big":
        return problem(
          `${bound("at most", "<", issue.origin, issue.maximum, issue.inclusive)}, got ${size(found.value)}`,
        );
      case "not_multiple_of":
        return problem(`must be a multiple of ${issue.divisor}, got ${preview(found.value)}`);
      case "invalid_format":
        return problem(`${lowerFirst(issue.message)}, got ${preview(found.value)}`);
      default:
        return problem(lowerFirst(issue.message));
    }
  },
};

function lookup(root: unknown, path: Path): { present: boolean; value: unknown } {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) {
      return { present: false, value: undefined };
    }
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value };
}

function typeName(expected: string): string {
  if (expected === "int") return "integer";
  if (expected === "record") return "object";
  return expected;
}

/** The JSON kind received; for a number that merely has the wrong shape (1.5 for an integer), the value itself. */
function received(value: unknown, expected: string): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && (expected === "int" || expected === "number")) return String(value);
  return typeof value;
}

function unionAlternatives(branches: readonly (readonly Issue[])[]): string {
  const names = new Set<string>();
  for (const branch of branches) {
    for (const inner of branch) {
      if (inner.path.length > 0) continue;
      if (inner.code === "invalid_type") names.add(typeName(inner.expected));
      else if (inner.code === "invalid_value") for (const value of inner.values) names.add(literal(value));
    }
  }
  return names.size > 0 ? [...names].join(" | ") : "one of the allowed shapes";
}

function bound(
  word: string,
  sign: string,
  origin: string,
  limit: number | bigint,
  inclusive?: boolean,
): string {
  if (origin === "string") return `must be ${word} ${count(limit, "character")} long`;
  if (origin === "array" || origin === "set") return `must have ${word} ${count(limit, "item")}`;
  return `must be ${sign}${inclusive ? "=" : ""} ${limit}`;
}

function size(value: unknown): string {
  if (typeof value === "string") return count(value.length, "character");
  if (Array.isArray(value)) return count(value.length, "item");
  return preview(value);
}

function count(amount: number | bigint, noun: string): string {
  return `${amount} ${noun}${amount === 1 || amount === 1n ? "" : "s"}`;
}

function literal(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** A short rendering of a received value; agents sometimes put whole files in a field. */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return shortenText(text, 60);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

// The config wording: messages are made while parsing (`configIssueMessage`), so a schema's own
// message wins; afterwards only paths and unknown keys are worded.

const CONFIG_WORDING: Wording<ConfigSource> = {
  /** `agents[2].writes`, `env["A B"]`. */
  path(path) {
    let out = "";
    for (const segment of path) {
      if (typeof segment === "number") out += `[${segment}]`;
      else if (typeof segment === "string" && /^[A-Za-z0-9_-]+$/.test(segment))
        out += out ? `.${segment}` : segment;
      else out += `[${JSON.stringify(String(segment))}]`;
    }
    return out;
  },
  unknownKey(key, owner, source) {
    const schema = schemaAt(source.schema, owner);
    const suggestion = suggestKey(key, schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);
    return suggestion ? `unknown key (did you mean "${suggestion}"?)` : "unknown key";
  },
  describe: (issue, path) => [{ path: CONFIG_WORDING.path(path), message: issue.message }],
};

/** A short, user-facing rendering of a YAML value for "got …" in the config wording. Never throws. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(shortenText(value, 60));
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
 * The config wording's per-parse zod error map: the message for issues whose schema carries no
 * message of its own. Pass it with `reportInput: true`, so "got …" can name the value. Never throws.
 * @example schema.safeParse(value, { reportInput: true, error: configIssueMessage })
 */
export function configIssueMessage(issue: z.core.$ZodRawIssue): string {
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

/** Follows a wire path through wrappers, lists, records and objects to the schema at its end. */
function schemaAt(root: z.ZodType, path: Path): z.ZodType | undefined {
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
