/**
 * A valid example envelope generated from an output type's zod schema, for `sssf run --dry-run`: the
 * schema's JSON Schema (zod's own `toJSONSchema`, input side) walked deterministically, then checked
 * by the schema itself. Choices lean towards the path a passing run takes: the first enum value
 * (`status: "success"`), `true` for booleans, the fewest array items allowed, the smallest number
 * allowed, and `<field>` for strings.
 */

import { z } from "zod";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import { SssfError } from "../errors/sssf-error.js";

type Json = Record<string, unknown>;

/** The output type an example cannot be made for, and why. */
export class ExampleGenerationError extends SssfError {
  constructor(typeName: string, why: string) {
    super("usage", `cannot generate an example envelope of output type ${typeName}: ${why}`);
    this.name = "ExampleGenerationError";
  }
}

const STRING_FORMATS: Record<string, string> = {
  "date-time": "2026-01-01T00:00:00.000Z",
  date: "2026-01-01",
  time: "00:00:00",
  email: "dry-run@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
};

const MAX_DEPTH = 24;

class Generator {
  constructor(private readonly root: Json) {}

  value(schema: unknown, at: string, depth: number): unknown {
    if (depth > MAX_DEPTH)
      throw new Error(`${at}: the schema nests deeper than ${MAX_DEPTH} levels (recursive?)`);
    if (schema === true || schema === undefined) return null;
    if (schema === false) throw new Error(`${at}: the schema allows no value`);
    const s = schema as Json;
    if (typeof s.$ref === "string") return this.value(this.resolve(s.$ref, at), at, depth + 1);
    if ("const" in s) return s.const;
    if (Array.isArray(s.enum)) return s.enum[0];
    const options = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
    if (Array.isArray(options)) {
      const notNull = options.find((option) => (option as Json).type !== "null");
      return this.value(notNull ?? options[0], at, depth + 1);
    }
    if (Array.isArray(s.allOf)) return this.value(Object.assign({}, ...(s.allOf as Json[])), at, depth + 1);
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type];
    const type = types.find((t) => t !== "null") ?? types[0];
    switch (type) {
      case "object":
        return this.object(s, at, depth);
      case "array":
        return this.array(s, at, depth);
      case "string":
        return this.string(s, at);
      case "integer":
      case "number":
        return this.number(s, type === "integer");
      case "boolean":
        return true;
      case "null":
        return null;
      default:
        return s.properties === undefined ? null : this.object(s, at, depth);
    }
  }

  private resolve(ref: string, at: string): unknown {
    if (!ref.startsWith("#/")) throw new Error(`${at}: cannot follow the reference ${ref}`);
    let node: unknown = this.root;
    for (const key of ref.slice(2).split("/")) node = (node as Json | undefined)?.[key];
    if (node === undefined) throw new Error(`${at}: the reference ${ref} leads nowhere`);
    return node;
  }

  private object(s: Json, at: string, depth: number): Json {
    const out: Json = {};
    for (const [key, property] of Object.entries((s.properties ?? {}) as Json))
      out[key] = this.value(property, at === "" ? key : `${at}.${key}`, depth + 1);
    return out;
  }

  private array(s: Json, at: string, depth: number): unknown[] {
    const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as unknown[]) : [];
    const items = prefix.map((item, i) => this.value(item, `${at}[${i}]`, depth + 1));
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    for (let i = items.length; i < min; i++) items.push(this.value(s.items, `${at}[${i}]`, depth + 1));
    return items;
  }

  private string(s: Json, at: string): string {
    const format = typeof s.format === "string" ? STRING_FORMATS[s.format] : undefined;
    let text = format ?? `<${at || "value"}>`;
    const min = typeof s.minLength === "number" ? s.minLength : 0;
    const max = typeof s.maxLength === "number" ? s.maxLength : Number.POSITIVE_INFINITY;
    if (text.length < min) text = text.padEnd(min, "x");
    if (text.length > max) text = text.slice(0, max);
    return text;
  }

  private number(s: Json, integer: boolean): number {
    const exclusive = typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : undefined;
    let n =
      typeof s.minimum === "number"
        ? s.minimum
        : exclusive !== undefined
          ? exclusive + (integer ? 1 : 0.5)
          : 0;
    if (typeof s.maximum === "number" && n > s.maximum) n = s.maximum;
    if (integer) n = Math.ceil(n);
    if (typeof s.multipleOf === "number" && s.multipleOf > 0) n = Math.ceil(n / s.multipleOf) * s.multipleOf;
    return n;
  }
}

/** Where and what a zod issue says, in one line. */
const issueLine = (issue: z.core.$ZodIssue): string =>
  `${issue.path.length === 0 ? "(envelope)" : issue.path.join(".")}: ${issue.message}`;

/**
 * A valid envelope of `type`, the same on every call. Throws ExampleGenerationError naming the type
 * when its schema has a part JSON Schema cannot express (a `z.custom`, a transform) or the generated
 * value fails the schema (a refinement, a pattern).
 */
export function exampleEnvelope<T extends OutputType>(type: T): EnvelopeOf<T> {
  let jsonSchema: Json;
  try {
    jsonSchema = z.toJSONSchema(type.schema, { io: "input" }) as Json;
  } catch (error) {
    throw new ExampleGenerationError(
      type.name,
      `its schema has a part JSON Schema cannot express (${(error as Error).message})`,
    );
  }
  let value: unknown;
  try {
    value = new Generator(jsonSchema).value(jsonSchema, "", 0);
  } catch (error) {
    throw new ExampleGenerationError(type.name, (error as Error).message);
  }
  const parsed = type.schema.safeParse(value);
  if (!parsed.success)
    throw new ExampleGenerationError(
      type.name,
      `the generated value fails its schema (${parsed.error.issues.map(issueLine).join("; ")}): a refinement or pattern sssf cannot satisfy by itself`,
    );
  return parsed.data as EnvelopeOf<T>;
}
