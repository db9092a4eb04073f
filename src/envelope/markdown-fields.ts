/**
 * The names of the Markdown contract's data, and the `**Name**: value` lines of its compact form (the
 * one Agent Teams Lite's skills return: bold fields, no `###` sections). Leaf module: no imports.
 */

/** A datum of the report, as a `###` section or a bold field names it. */
export type DatumKey =
  | "status"
  | "change"
  | "project"
  | "summary"
  | "artifacts"
  | "next_recommended"
  | "risks";

/** One `Name: value` line: a bold field (`**Name**: value`), or a plain one (`Status: value`). */
export interface FieldLine {
  /** The datum the name gives, or null for a name the contract does not know (`**Location**`, `**Mode**`). */
  key: DatumKey | null;
  /** The name as written, without emphasis. */
  name: string;
  /** The value on the same line, trimmed ("" when the value starts on the next line). */
  rest: string;
  /** Spaces before the line's first character. */
  indent: number;
  /** True when the line starts with a list bullet (`- **Status**: …`). */
  bullet: boolean;
  /** True for `**Name**:` / `__Name__:`; false for a plain `Name:`. */
  bold: boolean;
}

const SEVERITY_NAME = /^(critical|warning|suggestion)s?$/i;
const BOLD_FIELD =
  /^( *)(?:([-*+]|\d{1,9}[.)])[ \t]+)?(\*\*|__)[ \t]*([A-Za-z][\w ./&'-]{0,48}?)[ \t]*(:?)[ \t]*(?:\*\*|__)[ \t]*(:?)[ \t]*(.*)$/;
const PLAIN_FIELD = /^( *)(?:([-*+]|\d{1,9}[.)])[ \t]+)?(change|status|project)[ \t]*:[ \t]*(.*)$/i;

/**
 * What a section title or field name names, or null. Case, surrounding emphasis, a trailing colon,
 * underscores (`next_recommended`) and runs of spaces are forgiven. Synonyms: `Executive Summary`;
 * `Artifact`, `Artefacts`; `Next`, `Next Step(s)`, `Next Action(s)`, `Next Recommended (Step(s))`,
 * `Next Recommendation(s)`, `Recommended Next Step(s)`; `Risk`. Never throws.
 *
 * @example datumKey("Next Steps") // "next_recommended"
 */
export function datumKey(name: string): DatumKey | null {
  const bare = name
    .replace(/^[\s*_]+|[\s*_:.]+$/g, "")
    .replace(/_/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
  if (/^(executive )?summary$/.test(bare)) return "summary";
  if (/^(artifacts?|artefacts?)$/.test(bare)) return "artifacts";
  if (/^next( recommend(ed|ation|ations)?)?( steps?| actions?)?$/.test(bare)) return "next_recommended";
  if (/^recommended next( steps?| actions?)?$/.test(bare)) return "next_recommended";
  if (/^risks?$/.test(bare)) return "risks";
  if (bare === "status" || bare === "change" || bare === "project") return bare;
  return null;
}

/**
 * Reads `text` as a field line, or returns null. A bold field is `**Name**: value`, `**Name:** value`
 * or `__Name__: value`, after an optional bullet; a bold severity (`**WARNING**: …`, a Risks item) is
 * no field. With `plain`, `Status:`, `Change:` and `Project:` without emphasis are fields too (the
 * contract's preamble allows them). Never throws.
 *
 * @example fieldLine("**Next**: sdd-spec")?.key // "next_recommended"
 */
export function fieldLine(text: string, options: { plain?: boolean } = {}): FieldLine | null {
  const bold = BOLD_FIELD.exec(text);
  if (bold !== null && (bold[5] === ":" || bold[6] === ":")) {
    const name = (bold[4] ?? "").trim();
    if (SEVERITY_NAME.test(name)) return null;
    return {
      key: datumKey(name),
      name,
      rest: (bold[7] ?? "").trim(),
      indent: bold[1]?.length ?? 0,
      bullet: bold[2] !== undefined,
      bold: true,
    };
  }
  if (!options.plain) return null;
  const plain = PLAIN_FIELD.exec(text);
  if (plain === null) return null;
  const name = plain[3] ?? "";
  return {
    key: datumKey(name),
    name,
    rest: (plain[4] ?? "").trim(),
    indent: plain[1]?.length ?? 0,
    bullet: plain[2] !== undefined,
    bold: false,
  };
}

/** Starts a new artifact: inline code, a link, an observation id, or a word holding `/` or `.`. */
const ARTIFACT_START = /`[^`]+`|\]\(|#obs_|[^\s/.]*[/.][^\s]/;
const SEVERITY_START = /^[\s*_[(]*(critical|warning|suggestion)s?(?![a-z])/i;

/**
 * Splits a one-line Artifacts value (`a.md, b.md`, `` `a.md` | `b.md` ``, `a.md; b.md`) at commas,
 * semicolons and pipes outside inline code, parentheses and brackets. A piece that names no path
 * (no inline code, link, observation id, or word holding `/` or `.`) continues the artifact before it,
 * so `src/a.ts — the toggle, with tests` stays one item. Pieces are trimmed. Never throws.
 *
 * @example splitInlineArtifacts("`a.md` (new), b.md | c.md") // ["`a.md` (new)", "b.md", "c.md"]
 */
export function splitInlineArtifacts(value: string): string[] {
  return joinPieces(value, (text) => ARTIFACT_START.test(text));
}

/**
 * Splits a one-line Risks value into risk items the same way: a piece starts a new risk only when it
 * starts with a severity, so `**WARNING**: slow, flaky; **SUGGESTION**: rename` gives two items and
 * the comma inside the first stays. Never throws.
 */
export function splitInlineRisks(value: string): string[] {
  return joinPieces(value, (text) => SEVERITY_START.test(text));
}

function joinPieces(value: string, startsItem: (text: string) => boolean): string[] {
  const items: string[] = [];
  for (const piece of inlinePieces(value)) {
    const last = items.length - 1;
    if (items.length === 0 || startsItem(piece.text)) items.push(piece.text);
    else items[last] = `${items[last] ?? ""}${piece.separator}${piece.text}`;
  }
  return items.map((item) => item.trim()).filter((item) => item !== "");
}

/** The pieces between top-level separators, each with the separator before it. */
function inlinePieces(value: string): { separator: string; text: string }[] {
  const pieces: { separator: string; text: string }[] = [];
  let depth = 0;
  let inCode = false;
  let start = 0;
  let separator = "";
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === "`") inCode = !inCode;
    else if (inCode) continue;
    else if (char === "(" || char === "[") depth++;
    else if ((char === ")" || char === "]") && depth > 0) depth--;
    else if (depth === 0 && (char === "," || char === ";" || char === "|")) {
      pieces.push({ separator, text: value.slice(start, i) });
      separator = char;
      start = i + 1;
    }
  }
  pieces.push({ separator, text: value.slice(start) });
  return pieces;
}
