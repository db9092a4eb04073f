/**
 * codex sends `--output-schema` as the Responses `text.format` `{type: "json_schema", strict: true,
 * name: "codex_output_schema"}` and never checks the reply itself: the endpoint's strict mode is the
 * enforcement. OpenAI's strict mode refuses a schema whose objects lack `additionalProperties: false`
 * or do not list every property in `required` (400 `invalid_json_schema`), so sssf's output types
 * (optional fields with defaults) are rewritten first: every object closed, every property required,
 * each optional one made nullable (`anyOf: [..., {type: "null"}]`), `default` and `$schema` dropped.
 * The reply then carries `null` for optional fields the model left out; `dropStrictNulls` removes
 * those so sssf's door sees the reply as the output type defines it.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The strict form of a schema, or why it has none. */
export type StrictSchema = { ok: true; schema: Json; nullable: number } | { ok: false; reason: string };

/** Keywords strict mode has no equivalent for; a schema using them is not passed to codex. */
const UNSUPPORTED = [
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "propertyNames",
  "prefixItems",
];

/** Whether `node` accepts `null` as it stands. */
function acceptsNull(node: Json): boolean {
  const type = node.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if ("const" in node && node.const === null) return true;
  const union = node.anyOf ?? node.oneOf;
  return Array.isArray(union) && union.some((branch) => isObject(branch) && acceptsNull(branch));
}

function isObjectNode(node: Json): boolean {
  const type = node.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || "properties" in node;
}

const where = (at: string): string => (at === "" ? "the root" : `field ${at}`);

class StrictRewrite {
  nullable = 0;

  node(value: unknown, at: string): Json {
    if (!isObject(value)) throw new Error(`${where(at)} is not a schema`);
    const { default: _default, $schema: _dialect, oneOf, ...node } = value;
    const unsupported = UNSUPPORTED.find((keyword) => keyword in node);
    if (unsupported !== undefined)
      throw new Error(`${where(at)} uses "${unsupported}", which strict mode cannot express`);
    const union = node.anyOf ?? oneOf;
    const typed = ["type", "enum", "const", "$ref"].some((keyword) => keyword in node) || union !== undefined;
    if (!typed) throw new Error(`${where(at)} accepts any value, which strict mode cannot express`);
    if (Array.isArray(union))
      node.anyOf = union.map((branch, index) => this.node(branch, `${at}.anyOf[${index}]`));
    if (isObject(node.$defs)) node.$defs = this.each(node.$defs, `${at}.$defs`);
    if (isObject(node.definitions)) node.definitions = this.each(node.definitions, `${at}.definitions`);
    if (node.items !== undefined) node.items = this.node(node.items, `${at}[]`);
    if (isObjectNode(node)) this.object(node, at);
    return node;
  }

  private each(defs: Json, at: string): Json {
    return Object.fromEntries(
      Object.entries(defs).map(([key, child]) => [key, this.node(child, `${at}.${key}`)]),
    );
  }

  private object(node: Json, at: string): void {
    if (node.additionalProperties !== undefined && node.additionalProperties !== false)
      throw new Error(`${where(at)} allows keys of its own choosing, which strict mode cannot express`);
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties = isObject(node.properties) ? node.properties : {};
    const rewritten: Json = {};
    for (const [key, child] of Object.entries(properties)) {
      const strict = this.node(child, at === "" ? key : `${at}.${key}`);
      if (required.has(key) || acceptsNull(strict)) rewritten[key] = strict;
      else {
        this.nullable += 1;
        rewritten[key] = { anyOf: [strict, { type: "null" }] };
      }
    }
    node.properties = rewritten;
    node.required = Object.keys(rewritten);
    node.additionalProperties = false;
  }
}

/**
 * The strict-mode form of `schema` (a copy), with the number of optional fields made nullable, or the
 * reason it cannot have one (a map with free keys, an unconstrained field, `allOf`…). Never throws.
 */
export function codexStrictSchema(schema: Json): StrictSchema {
  const rewrite = new StrictRewrite();
  try {
    const strict = rewrite.node(schema, "");
    if (!isObjectNode(strict)) return { ok: false, reason: "its root is not an object" };
    return { ok: true, schema: strict, nullable: rewrite.nullable };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** `#/$defs/name` (or `#/definitions/name`) of `root`, else `node` itself. */
function resolve(node: unknown, root: Json): Json {
  if (!isObject(node) || typeof node.$ref !== "string") return isObject(node) ? node : {};
  const [, defs, name] = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref) ?? [];
  const target = defs && name ? (root[defs] as Json | undefined)?.[name] : undefined;
  return isObject(target) ? target : node;
}

/** The schema an object value is read under: the node itself, or its one object branch. */
function objectBranch(node: Json, root: Json): Json | null {
  if (isObjectNode(node)) return node;
  const union = node.anyOf ?? node.oneOf;
  if (!Array.isArray(union)) return null;
  const branches = union.map((branch) => resolve(branch, root)).filter(isObjectNode);
  return branches.length === 1 ? (branches[0] ?? null) : null;
}

/**
 * `value` with the `null`s strict mode forced on optional fields removed: a key is dropped when it is
 * `null`, not required by the original `schema`, and the original field does not accept `null`.
 * Returns the cleaned copy and how many keys were dropped. Never throws.
 */
export function dropStrictNulls(value: unknown, schema: Json): { value: unknown; dropped: number } {
  let dropped = 0;
  const clean = (item: unknown, raw: unknown): unknown => {
    const node = resolve(raw, schema);
    if (Array.isArray(item))
      return node.items === undefined ? item : item.map((entry) => clean(entry, node.items));
    if (!isObject(item)) return item;
    const branch = objectBranch(node, schema);
    if (branch === null) return item;
    const properties = isObject(branch.properties) ? branch.properties : {};
    const required = new Set(Array.isArray(branch.required) ? branch.required : []);
    const out: Json = {};
    for (const [key, entry] of Object.entries(item)) {
      const field = properties[key];
      if (
        entry === null &&
        field !== undefined &&
        !required.has(key) &&
        !acceptsNull(resolve(field, schema))
      ) {
        dropped += 1;
        continue;
      }
      out[key] = field === undefined ? entry : clean(entry, field);
    }
    return out;
  };
  const cleaned = clean(value, schema);
  return { value: cleaned, dropped };
}
