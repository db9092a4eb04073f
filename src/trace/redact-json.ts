import { REDACTED, redactSecrets } from "./redact.js";

const SECRET_NAME = /(?:.key|token|secret|password)$/i;

function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === "object") {
    const result: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      result[name] =
        SECRET_NAME.test(name) && typeof field === "string" && field !== "" ? REDACTED : redactValue(field);
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
