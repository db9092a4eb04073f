import { redactSecrets } from "./redact.js";

/**
 * The end of `text`, at most `max` characters, secrets redacted before the cut: a secret the cut goes
 * through was seen whole, and only its placeholder is cut. Give it more than the tail (a buffer that
 * starts well before the cut), so a secret's start is in it. Never throws.
 * @example redactedTail(`error: sk-ant-api03-${"x".repeat(40)} refused`, 15); // "y-key] refused"
 */
export function redactedTail(text: string, max: number): string {
  const redacted = redactSecrets(text);
  return redacted.length <= max ? redacted : redacted.slice(-max);
}
