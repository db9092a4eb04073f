/**
 * Sentence counting for the contract's "Summary: 1-3 sentences" rule. Leaf module: no imports.
 */

/** Words a period follows without ending the sentence (compared lower-case, without the period). */
const ABBREVIATIONS = new Set(
  "e.g eg i.e ie etc vs cf approx incl excl esp resp mr mrs ms dr prof st jr sr no nr fig al ca min max".split(
    " ",
  ),
);

/** A run of `.`, `!` or `?`, with the closing quotes, brackets and emphasis that may follow it. */
const TERMINATOR = /[.!?]+["'\u201d\u2019)\]*_]*/g;

/**
 * How many sentences `text` holds, as a reader counts them. Each paragraph and each bullet item is
 * at least one sentence when it holds a letter or digit; inside one, a sentence ends at `.`, `!` or
 * `?` (with any closing quote, bracket or emphasis) followed by whitespace and then a character that
 * is not a lower-case letter, or by the end. Not an end: a period inside a word (`proposal.md`,
 * `v1.2`, `e.g.`), after a common abbreviation (`e.g.`, `i.e.`, `etc.`, `vs.`, `Dr.`) or a single
 * letter (`J. Smith`). Fenced code, inline code and URLs count as text without sentence ends.
 * Never throws.
 *
 * @example countSentences("Added the toggle. Tests pass!") // 2
 */
export function countSentences(text: string): number {
  let count = 0;
  for (const unit of units(text)) count += unitSentences(unit);
  return count;
}

/** Paragraphs and bullet items, fenced code left out. */
function units(text: string): string[] {
  const found: string[] = [];
  let current = "";
  let fence = false;
  const flush = () => {
    if (current.trim() !== "") found.push(current);
    current = "";
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    if (line.trim() === "") flush();
    else if (/^\s*(?:[-*+]|\d{1,9}[.)])\s/.test(line)) {
      flush();
      current = line.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+/, "");
    } else current = current === "" ? line : `${current} ${line}`;
  }
  flush();
  return found;
}

function unitSentences(unit: string): number {
  const text = unit
    .replace(/`[^`]*`/g, "code")
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+?(?=[.,;:!?)\]]*(?:\s|$))/gi, "url");
  let sentences = 0;
  let start = 0;
  for (const match of text.matchAll(TERMINATOR)) {
    const end = (match.index ?? 0) + match[0].length;
    const after = text.slice(end);
    if (after !== "" && !/^\s/.test(after)) continue;
    const next = after.trimStart();
    if (next !== "" && /^\p{Ll}/u.test(next)) continue;
    if (match[0].startsWith(".") && isAbbreviation(text.slice(start, match.index ?? 0))) continue;
    if (/[\p{L}\p{N}]/u.test(text.slice(start, end))) sentences++;
    start = end;
  }
  if (/[\p{L}\p{N}]/u.test(text.slice(start))) sentences++;
  return sentences;
}

/** True when the sentence so far ends in an abbreviation or a single letter (`e.g`, `J`). */
function isAbbreviation(before: string): boolean {
  const word = (/(\S+)$/.exec(before)?.[1] ?? "").replace(/^[("'\u201c\u2018[*_]+/, "").toLowerCase();
  return ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word);
}
