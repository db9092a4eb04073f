import type { z } from "zod";

/**
 * The lines of NDJSON `input` that are JSON objects valid against `schema`, in order; other lines
 * (a runner's plain text mixed into stdout, a truncated last line) are skipped.
 */
export function jsonLines<T extends z.ZodType>(input: string, schema: T): z.output<T>[] {
  const events: z.output<T>[] = [];
  for (const line of input.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) events.push(parsed.data);
  }
  return events;
}

/** The whole of `input` as JSON, or the reason it is not. */
export function jsonDocument(input: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(input) };
  } catch (error) {
    return { ok: false, reason: `not valid JSON: ${(error as Error).message}` };
  }
}
