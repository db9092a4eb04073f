/**
 * OpenAI's check of a `strict: true` JSON Schema (Responses `text.format`, chat `response_format`),
 * as far as the fake plays it: every object node must set `additionalProperties: false` and list every
 * property in `required`. The real API refuses a schema that breaks either rule with a 400
 * `invalid_json_schema` before generating anything; the messages are the API's own wording.
 */
import { asArray, asRecord, type RequestFacts, type RequestRejection } from "./wire-api.js";

/** A path inside the schema, as the API prints it: a Python tuple such as `('properties', 'x')`. */
function pythonTuple(path: readonly (string | number)[]): string {
  const items = path.map((part) => (typeof part === "number" ? String(part) : `'${part}'`));
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
}

function isObjectNode(node: Record<string, unknown>): boolean {
  const type = node.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || "properties" in node;
}

/** The first rule `node` (at `path`) breaks, without the `Invalid schema…` prefix, or null. */
function firstProblem(node: Record<string, unknown>, path: (string | number)[]): string | null {
  if (isObjectNode(node)) {
    const context = `In context=${pythonTuple(path)}`;
    if (node.additionalProperties !== false)
      return `${context}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = Object.keys(asRecord(node.properties));
    const required = asArray(node.required);
    const missing = keys.find((key) => !required.includes(key));
    if (missing !== undefined)
      return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
  }
  const children: [(string | number)[], unknown][] = [];
  for (const [key, child] of Object.entries(asRecord(node.properties)))
    children.push([["properties", key], child]);
  for (const defs of ["$defs", "definitions"])
    for (const [key, child] of Object.entries(asRecord(node[defs]))) children.push([[defs, key], child]);
  if (node.items && typeof node.items === "object" && !Array.isArray(node.items))
    children.push([["items"], node.items]);
  for (const union of ["anyOf", "oneOf"])
    asArray(node[union]).forEach((child, index) => {
      children.push([[union, index], child]);
    });
  for (const [step, child] of children) {
    const problem = firstProblem(asRecord(child), [...path, ...step]);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * The API's message refusing `schema` under strict mode (`Invalid schema for response_format
 * '<name>': In context=(), 'additionalProperties' is required…`), or null when it passes. Never throws.
 */
export function strictSchemaProblem(name: string, schema: unknown): string | null {
  const problem = firstProblem(asRecord(schema), []);
  return problem === null ? null : `Invalid schema for response_format '${name}': ${problem}`;
}

/**
 * The API's 400 for a request whose native schema is strict and breaks the strict rules (`param` names
 * where the schema sits: `text.format.schema`, `response_format`), or null. Never throws.
 */
export function rejectStrictSchema(request: RequestFacts, param: string): RequestRejection | null {
  const native = request.outputSchema;
  if (native === null || native.via !== "format" || !native.strict) return null;
  const message = strictSchemaProblem(native.name, native.schema);
  return message === null ? null : { status: 400, message, code: "invalid_json_schema", param };
}
