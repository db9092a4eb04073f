import { z } from "zod";
import { exampleJsonBlock } from "./example-block.js";
import { markdownReportSection } from "./markdown-report-section.js";
import type { OutputType } from "./output-type.js";

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of what an agent may send for `type`: the input side, so fields with a default are
 * optional and only truly required ones (such as `status`) are listed in `required`. Parts JSON Schema
 * cannot express (transforms, dates) become unconstrained rather than throwing. Never throws.
 */
export function outputJsonSchema(type: OutputType): Record<string, unknown> {
  let schema = jsonSchemas.get(type.schema);
  if (schema === undefined) {
    schema = z.toJSONSchema(type.schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    jsonSchemas.set(type.schema, schema);
  }
  // A copy: callers reshape it for their runtime (strict mode, stripped keywords).
  return structuredClone(schema);
}

// A zod schema never changes once built, so its JSON Schema is derived once per process.
const jsonSchemas = new WeakMap<object, Record<string, unknown>>();

/**
 * The prompt's `## Report` section for `type`: the instruction to answer with ONLY JSON, the type's
 * example in a ```json fence, and a field list (name, type, required or optional, description) derived
 * from the same schema that validates the reply, so prompt and parser cannot drift. With `format`
 * `"markdown"` it is `markdownReportSection(type)` instead: the Markdown result contract, whose type must
 * be MarkdownResult or extend it. Never throws for JSON.
 *
 * @example userPrompt += `\n\n${reportSection(ScoutOutput)}`;
 */
export function reportSection(type: OutputType, format: "json" | "markdown" = "json"): string {
  if (format === "markdown") return markdownReportSection(type);
  const schema = outputJsonSchema(type);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = Object.entries(asRecord(schema.properties)).map(([name, node]) => {
    const description = asRecord(node).description;
    const about = typeof description === "string" ? `: ${description.replace(/\s+/g, " ")}` : "";
    return `- \`${name}\` (${typeText(node)}, ${required.has(name) ? "required" : "optional"})${about}`;
  });
  return [
    "## Report",
    "",
    `Respond with ONLY valid JSON matching \`${type.name}\` — no prose before or after:`,
    "",
    exampleJsonBlock(type),
    "",
    "Fields:",
    ...fields,
  ].join("\n");
}

/** A compact TypeScript-like rendering of a JSON Schema node: `"a" | "b"`, `string[]`, `{ file: string }[]`. */
function typeText(value: unknown): string {
  const node = asRecord(value);
  if (Array.isArray(node.enum)) return node.enum.map(literal).join(" | ");
  if ("const" in node) return literal(node.const);
  const union = node.anyOf ?? node.oneOf;
  if (Array.isArray(union)) return union.map(typeText).join(" | ");
  if (Array.isArray(node.type)) return node.type.map((name) => typeText({ ...node, type: name })).join(" | ");
  switch (node.type) {
    case "array": {
      const item = typeText(node.items);
      return isUnion(asRecord(node.items)) ? `(${item})[]` : `${item}[]`;
    }
    case "object":
      return objectText(node);
    case "string":
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return node.type;
    default:
      return "any";
  }
}

function isUnion(node: JsonSchema): boolean {
  const union = node.anyOf ?? node.oneOf;
  return (
    (Array.isArray(node.enum) && node.enum.length > 1) ||
    (Array.isArray(union) && union.length > 1) ||
    (Array.isArray(node.type) && node.type.length > 1)
  );
}

function objectText(node: JsonSchema): string {
  const properties = Object.entries(asRecord(node.properties));
  if (properties.length === 0) return "object";
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const members = properties.map(
    ([name, child]) => `${name}${required.has(name) ? "" : "?"}: ${typeText(child)}`,
  );
  return `{ ${members.join(", ")} }`;
}

function asRecord(value: unknown): JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonSchema) : {};
}

function literal(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
