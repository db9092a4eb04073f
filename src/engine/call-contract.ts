import type { ContractFormat } from "../api/run-api.js";
import { gateCorrectionMessage, jsonCorrectionMessage } from "../envelope/correction.js";
import { markdownCorrectionMessage, markdownGateCorrectionMessage } from "../envelope/markdown-correction.js";
import { markdownTypeProblem, parseMarkdownEnvelope } from "../envelope/markdown-envelope.js";
import { assertExampleMatches, type EnvelopeOf, type OutputType } from "../envelope/output-type.js";
import { type EnvelopeProblem, parseEnvelope } from "../envelope/parse-envelope.js";
import { outputJsonSchema, reportSection } from "../envelope/report-section.js";
import { UsageError } from "../errors/usage-error.js";
import type { GateReport } from "../gates/gate.js";

/** A reply read under the call's contract: the envelope, or its problems and the correction to send. */
export type ContractParse<E> =
  | { ok: true; envelope: E }
  | { ok: false; problems: EnvelopeProblem[]; correction: string };

/** Everything in the agent call that depends on the contract format (JSON or Markdown). */
export interface CallContract<T extends OutputType> {
  /** The `## Report` section appended to the user prompt. */
  reportSection: string;
  /** The `{{output_schema}}` placeholder: the JSON Schema, or the Markdown `## Report` section. */
  outputSchema: string;
  /** The JSON Schema passed to runtimes that enforce it natively: the type's schema (JSON), undefined (Markdown). */
  outputJsonSchema?: Record<string, unknown> | undefined;
  /** Reads a reply; problems carry the field path (JSON) or the section name (Markdown) in `path`. */
  parse(text: string): ContractParse<EnvelopeOf<T>>;
  /** The correction sent into the same session when gates failed. */
  gateCorrection(reports: GateReport[]): string;
  /** Why the phase fails when the agent declared failure (`status: "fail"`). */
  failureReason(agent: string, envelope: object): string;
}

/**
 * The contract of a call: `"json"` (default) parses the last valid JSON object and corrects by field
 * path; `"markdown"` parses the Markdown result contract into `type` and corrects by section, and its
 * failure reason carries the summary and every CRITICAL risk. Throws UsageError when `format` is
 * `"markdown"` and `type` is not MarkdownResult or a type extending it (see `markdownTypeProblem`).
 */
export function callContract<T extends OutputType>(
  type: T,
  format: ContractFormat = "json",
): CallContract<T> {
  assertExampleMatches(type);
  if (format === "markdown") {
    const problem = markdownTypeProblem(type);
    if (problem !== null) {
      throw new UsageError(
        `a call with format "markdown" needs outputType MarkdownResult or a type extending it: ${problem}`,
      );
    }
    const section = reportSection(type, "markdown");
    return {
      reportSection: section,
      outputSchema: section,
      outputJsonSchema: undefined,
      parse(text) {
        const parsed = parseMarkdownEnvelope(text, type);
        if (parsed.ok) return parsed;
        return {
          ok: false,
          problems: parsed.problems.map((p) => ({ path: p.section, message: p.message })),
          correction: markdownCorrectionMessage(type, parsed.problems),
        };
      },
      gateCorrection: (reports) => markdownGateCorrectionMessage(reports),
      failureReason(agent, envelope) {
        const report = envelope as { summary?: string; risks?: { severity: string; text: string }[] };
        const criticals = (report.risks ?? []).filter((risk) => risk.severity === "CRITICAL");
        const risks = criticals.map((risk) => `; CRITICAL: ${risk.text}`).join("");
        return `${agent} reported status "failure": ${report.summary || "(no summary)"}${risks}`;
      },
    };
  }
  const schema = outputJsonSchema(type);
  return {
    reportSection: reportSection(type),
    outputSchema: JSON.stringify(schema, null, 2),
    outputJsonSchema: schema,
    parse(text) {
      const parsed = parseEnvelope(text, type);
      if (parsed.ok) return { ok: true, envelope: parsed.envelope };
      return {
        ok: false,
        problems: parsed.problems,
        correction: jsonCorrectionMessage(type, parsed.problems),
      };
    },
    gateCorrection: (reports) => gateCorrectionMessage(type, reports),
    failureReason(agent, envelope) {
      const summary = (envelope as { summary?: string }).summary;
      return `${agent} reported status "fail": ${summary || "(no summary)"}`;
    },
  };
}
