import { redactSecrets } from "../../util/secrets/redact.js";

/** One test's outcome as a report gave it. */
export interface TestCase {
  name: string;
  /** The file (or class, package, binary) the report places the test in; null when it names none. */
  file: string | null;
  status: "passed" | "failed" | "skipped";
  /** The first lines of the failure, redacted and bounded; null for a test that did not fail. */
  message: string | null;
}

/** What a parser found: the tests, or why the report could not be read. */
export type TestReportResult = { ok: true; tests: TestCase[] } | { ok: false; reason: string };

/** Lines and characters of a failure message kept. */
const MESSAGE_LINES = 12;
const MESSAGE_CHARS = 2000;
/** A name or file longer than this is cut: it is shown on a terminal line and compared, not read. */
const NAME_CHARS = 500;

/** Control characters other than tab and newline: a report's text is printed on terminals. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function clean(text: string, limit: number): string {
  const plain = text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
  return plain.length > limit ? `${plain.slice(0, limit - 1)}…` : plain;
}

/**
 * A failure message as the envelope carries it: redacted whole (a secret spanning lines is still
 * recognised), then its first non-empty lines, bounded; null when nothing is left.
 */
export function failureMessage(...parts: (string | null | undefined)[]): string | null {
  const text = parts.filter((part): part is string => typeof part === "string" && part.trim() !== "");
  if (text.length === 0) return null;
  const redacted = redactSecrets(clean([...new Set(text)].join("\n"), MESSAGE_CHARS * 4));
  const lines = redacted.split("\n");
  while (lines.length > 0 && lines[0]?.trim() === "") lines.shift();
  const kept = lines.slice(0, MESSAGE_LINES).join("\n").trimEnd();
  return kept === "" ? null : clean(kept, MESSAGE_CHARS);
}

/** A test case with its name and file made safe to print and bounded. */
export function testCase(
  name: string,
  file: string | null | undefined,
  status: TestCase["status"],
  message: string | null = null,
): TestCase {
  const oneLine = (text: string) => clean(text, NAME_CHARS).replace(/\n/g, " ");
  const where = typeof file === "string" && file.trim() !== "" ? oneLine(file.trim()) : null;
  return {
    name: oneLine(name),
    file: where,
    status,
    message: status === "failed" ? message : null,
  };
}

/** A reason a report could not be read, as `parseTestReport` returns it. */
export function unreadable(reason: string): TestReportResult {
  return { ok: false, reason: clean(reason, 300).replace(/\n/g, " ") };
}
