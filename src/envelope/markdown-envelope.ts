import { zodIssueProblems } from "../util/zod-issues.js";
import { type MarkdownProblem, parseMarkdownResult, SECTION_NAMES } from "./markdown-parse.js";
import { MarkdownResult } from "./markdown-result-type.js";
import type { EnvelopeOf, OutputType } from "./output-type.js";

const CONTRACT_KEYS = Object.keys(MarkdownResult.schema.shape);

/** The contract section that carries each envelope field. */
const FIELD_SECTIONS: Record<string, string> = {
  phase: SECTION_NAMES.heading,
  change: SECTION_NAMES.change,
  status: SECTION_NAMES.status,
  result_status: SECTION_NAMES.status,
  warning: SECTION_NAMES.status,
  summary: SECTION_NAMES.summary,
  artifacts: SECTION_NAMES.artifacts,
  next_recommended: SECTION_NAMES.next_recommended,
  notes_for_next_agent: SECTION_NAMES.next_recommended,
  risks: SECTION_NAMES.risks,
};

/**
 * Why `type` cannot receive a Markdown report, or null when it can: it must be MarkdownResult or extend
 * it (its schema has every MarkdownResult field), and every field beyond the contract's must have a
 * default, since a Markdown report cannot carry it. Never throws.
 */
export function markdownTypeProblem(type: OutputType): string | null {
  if (type === MarkdownResult) return null;
  const missing = CONTRACT_KEYS.filter((key) => !Object.hasOwn(type.schema.shape, key));
  if (missing.length > 0) {
    return `${type.name} is not MarkdownResult and does not extend it (no ${missing.join(", ")})`;
  }
  const example = type.schema.safeParse(type.example);
  if (!example.success) return `the example of ${type.name} does not match its schema`;
  const contractOnly = Object.fromEntries(
    CONTRACT_KEYS.map((key) => [key, (example.data as Record<string, unknown>)[key]]),
  );
  const checked = type.schema.safeParse(contractOnly);
  if (!checked.success) {
    const fields = [...new Set(checked.error.issues.map((issue) => String(issue.path[0] ?? "")))];
    return `${type.name} has fields a Markdown report cannot carry and that have no default (${fields.join(", ")})`;
  }
  return null;
}

/**
 * Parses a Markdown report into `type` (MarkdownResult or a type extending it, see
 * `markdownTypeProblem`): `parseMarkdownResult`, then the type's own schema, whose problems are named
 * by the section carrying the field (`Summary`, `Risks`…) or, for a field of the extension, by its path.
 * Never throws, unless the type's own refinements or transforms do.
 */
export function parseMarkdownEnvelope<T extends OutputType>(
  text: string,
  type: T,
): { ok: true; envelope: EnvelopeOf<T> } | { ok: false; problems: MarkdownProblem[] } {
  const parsed = parseMarkdownResult(text);
  if (!parsed.ok) return parsed;
  const checked = type.schema.safeParse(parsed.envelope);
  if (checked.success) return { ok: true, envelope: checked.data as EnvelopeOf<T> };
  return {
    ok: false,
    problems: zodIssueProblems(checked.error.issues, { wording: "agent", value: parsed.envelope }).map(
      (problem) => {
        const field = /^[A-Za-z_$][\w$]*/.exec(problem.path)?.[0] ?? "";
        const section = FIELD_SECTIONS[field];
        return section === undefined
          ? { section: problem.path, message: problem.message }
          : {
              section,
              message: problem.path === field ? problem.message : `${problem.path}: ${problem.message}`,
            };
      },
    ),
  };
}
