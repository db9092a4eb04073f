import type { z } from "zod";
import type { EnvelopeProblem } from "./parse-envelope.js";

type Issue = z.core.$ZodIssue;

/**
 * Turns zod issues into one problem per wrong or missing field, worded for an agent that has to fix
 * its JSON. `root` is the value that was validated; looking paths up in it tells a missing field from
 * a wrong one and names the type actually received. Never throws.
 */
export function problemsFromIssues(
  issues: readonly Issue[],
  root: unknown,
  base: readonly PropertyKey[] = [],
): EnvelopeProblem[] {
  return issues.flatMap((issue) => describeIssue(issue, root, [...base, ...issue.path]));
}

/** `findings[0].met`, `["odd key"]`; the empty path renders as "". */
export function renderPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${typeof key === "string" ? JSON.stringify(key) : String(key)}]`;
  }
  return out;
}

function describeIssue(issue: Issue, root: unknown, path: PropertyKey[]): EnvelopeProblem[] {
  const found = lookup(root, path);
  const problem = (message: string): EnvelopeProblem[] => [{ path: renderPath(path), message }];
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
      if (found.present && closest) return problemsFromIssues(closest, root, path);
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
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        path: renderPath([...path, key]),
        message: "unexpected field; remove it",
      }));
    case "invalid_format":
      return problem(`${lowerFirst(issue.message)}, got ${preview(found.value)}`);
    default:
      return problem(lowerFirst(issue.message));
  }
}

function lookup(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
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
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
