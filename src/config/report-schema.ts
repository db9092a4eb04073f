import { z } from "zod";
import { describeValue } from "../util/zod-issues.js";
import { REPORT_FILE_PLACEHOLDER, REPORT_FORMATS } from "./report-formats.js";

/**
 * `quality.<suite>.report` on the wire: a bare format or `{ format, file }`; a wrong value names the
 * known formats. Built on call, as the rest of the config schema is.
 */
export function suiteReportSchema() {
  const reportFormat = z.enum(REPORT_FORMATS, {
    error: (issue) =>
      `expected a report format (${REPORT_FORMATS.join(", ")}), got ${describeValue(issue.input)}`,
  });
  return z
    .union(
      [
        reportFormat,
        z
          .object({
            format: reportFormat,
            file: z
              .string()
              .min(1)
              .optional()
              .describe(
                `The file the runner writes, relative to the suite's cwd or containing ${REPORT_FILE_PLACEHOLDER}; absent: ${REPORT_FILE_PLACEHOLDER} when the command has it, else the suite's stdout.`,
              ),
          })
          .strict(),
      ],
      {
        error: (issue) => {
          const input = issue.input;
          const known = `a report format (${REPORT_FORMATS.join(", ")})`;
          if (input === undefined) return undefined;
          if (typeof input === "string") return `expected ${known}, got ${describeValue(input)}`;
          if (typeof input !== "object" || input === null || Array.isArray(input)) {
            return `expected ${known} or { format, file }, got ${describeValue(input)}`;
          }
          const format = (input as { format?: unknown }).format;
          // Any other problem of a mapping (an unknown key, a bad file) is reported at its key.
          return (REPORT_FORMATS as readonly unknown[]).includes(format)
            ? undefined
            : `format: expected ${known}, got ${describeValue(format)}`;
        },
      },
    )
    .describe(
      `Per-test results: the runner's report format, read from the file (or stdout). ${REPORT_FILE_PLACEHOLDER} in the command or env is a fresh path per run.`,
    );
}
