/** What the Markdown parser tests expect of a reply: a report, or problems, and the sections they name. */
import { type MarkdownProblem, parseMarkdownResult } from "../../src/envelope/markdown-parse.js";

/** The envelope `text` parses to; throws with the problems when it is not a report. */
export function envelopeOf(text: string) {
  const parsed = parseMarkdownResult(text);
  if (!parsed.ok) throw new Error(`expected a report, got problems ${JSON.stringify(parsed.problems)}`);
  return parsed.envelope;
}

/** The problems `text` has; throws with the envelope when it parses. */
export function problemsOf(text: string): MarkdownProblem[] {
  const parsed = parseMarkdownResult(text);
  if (parsed.ok) throw new Error(`expected problems, got ${JSON.stringify(parsed.envelope)}`);
  return parsed.problems;
}

export const sections = (problems: MarkdownProblem[]) => problems.map((problem) => problem.section);

/** The base report (`BASE_ENVELOPE`) in the compact form, one field per entry. */
export const COMPACT_FIELDS = [
  "**Change**: add-dark-mode",
  "**Status**: success",
  "**Summary**: Proposal defines theme switching.",
  "**Artifacts**: openspec/changes/add-dark-mode/proposal.md",
  "**Next**: Ready for specs (sdd-spec).",
  "**Risks**: None.",
];

/** `fields` as a compact report under the Proposal Created heading, lines ended by `eol`. */
export const compact = (fields: readonly string[], eol = "\n") =>
  `## Proposal Created${eol}${eol}${fields.join(eol)}${eol}`;
