/**
 * The door to the OpenTelemetry export (docs/observability.md): off unless an endpoint is set, and then
 * the `@opentelemetry/*` packages are loaded with `import()`, never before.
 */

import type { OtlpTarget } from "./otlp-target.js";
import type { SpanExport } from "./run-export.js";

export { type OtlpTarget, otlpTarget } from "./otlp-target.js";
export type { SpanExport } from "./run-export.js";

/** One line to stderr: how an export's trouble is told without touching the run. */
export const warnOnStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * An export of spans to `target`, or undefined when `target` is null (export off: nothing loaded). A
 * failure to load the packages is a warning, and the run goes on without an export.
 */
export async function openExport(
  target: OtlpTarget | null,
  warn: (line: string) => void = warnOnStderr,
): Promise<SpanExport | undefined> {
  if (target === null) return undefined;
  try {
    const { openSpanExport } = await import("./run-export.js");
    return openSpanExport(target, warn);
  } catch (error) {
    warn(`sssf: warning: OpenTelemetry export to ${target.url} is off: ${(error as Error).message}`);
    return undefined;
  }
}
