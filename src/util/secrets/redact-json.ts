import { isPlaceholder, placeholder, redactSecrets } from "./redact.js";

const NAMED_VALUE = placeholder("named-value");

const SECRET_NAME = /(?:.key|token|secret|password)$/i;

function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === "object") {
    const result: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      result[name] =
        SECRET_NAME.test(name) && typeof field === "string" && field !== "" && !isPlaceholder(field)
          ? NAMED_VALUE
          : redactValue(field);
    }
    return result;
  }
  return value;
}

/**
 * {@link redactSecrets} for a JSON document (an event payload) that keeps it valid JSON.
 * Contract: never throws. Text without secrets is returned unchanged; when something matched and `text`
 * parses as JSON, the document is redacted value by value (string leaves, and string fields whose name ends
 * in KEY/TOKEN/SECRET/PASSWORD) and re-serialised; text that is not JSON gets plain `redactSecrets`.
 */
export function redactJsonText(text: string): string {
  const redacted = redactSecrets(text);
  if (redacted === text) return text;
  try {
    return JSON.stringify(redactValue(JSON.parse(text)));
  } catch {
    return redacted;
  }
}

/**
 * {@link redactJsonText} for a value about to be written as JSON (an envelope file, an approval file):
 * `value` itself when its JSON holds no secret, else a redacted copy (parsed back from the redacted JSON).
 * Contract: never throws for JSON-serialisable values; never mutates `value`; a value JSON cannot
 * represent (undefined, a function) is returned as is.
 * @example writeFileSync(file, `${JSON.stringify(redactJsonValue(envelope), null, 2)}\n`);
 */
export function redactJsonValue<V>(value: V): V {
  const text: string | undefined = JSON.stringify(value);
  if (text === undefined) return value;
  const redacted = redactJsonText(text);
  return redacted === text ? value : (JSON.parse(redacted) as V);
}
