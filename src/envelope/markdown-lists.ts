import type { Risk } from "./markdown-result-type.js";
import type { MarkdownLine } from "./markdown-text.js";

const BULLET = /^( *)(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$/;

/**
 * The items of a list section. When the section starts with a list (`- `, `* `, `+ `, `1. `, `1) `),
 * each top-level bullet is an item; indented lines and deeper bullets continue their item (joined with
 * a space), a blank line followed by an unindented non-bullet line ends the list (later prose is not
 * part of it). Otherwise each line of the first paragraph is an item. Items are trimmed. Never throws.
 */
export function listItems(lines: readonly MarkdownLine[]): string[] {
  const start = lines.findIndex((line) => line.text.trim() !== "");
  if (start < 0) return [];
  const first = BULLET.exec(lines[start]?.text ?? "");
  if (first === null) {
    const items: string[] = [];
    for (const line of lines.slice(start)) {
      if (line.text.trim() === "") break;
      items.push(line.text.trim());
    }
    return items;
  }
  const base = first[1]?.length ?? 0;
  const items: string[] = [];
  let afterBlank = false;
  for (const line of lines.slice(start)) {
    const text = line.text;
    if (text.trim() === "") {
      afterBlank = true;
      continue;
    }
    const bullet = line.code ? null : BULLET.exec(text);
    const indent = /^ */.exec(text)?.[0].length ?? 0;
    if (bullet && indent <= base + 1) {
      items.push((bullet[2] ?? "").trim());
    } else if (indent > base || !afterBlank) {
      const continued = (bullet ? (bullet[2] ?? "") : text).trim();
      items[items.length - 1] = `${items[items.length - 1] ?? ""} ${continued}`.trim();
    } else {
      break;
    }
    afterBlank = false;
  }
  return items.filter((item) => item !== "");
}

/**
 * True for the "nothing here" answers: anything starting with the word `None` (`None.`, `None (ephemeral)`,
 * `None found`), and exactly `N/A` or `Nothing`, with any emphasis or backticks around them. Never throws.
 */
export function isNoneItem(item: string): boolean {
  const bare = item.replace(/[*_`]/g, "").trim().toLowerCase();
  return /^none\b/.test(bare) || /^(n\/a|nothing)[.!]?$/.test(bare);
}

const OBSERVATION_ID = /#obs_[A-Za-z0-9_-]+/g;

/**
 * What an Artifacts item claims: every observation id in it (`Engram observation: #obs_abc123 (…)`
 * gives `#obs_abc123`); else the first inline code span; else a link's target; else a path-like first
 * word followed by an annotation (`docs/a.md (new)`, `docs/a.md — notes`); else the whole item
 * without surrounding bold. Never throws.
 */
export function artifactClaims(item: string): string[] {
  const ids = item.match(OBSERVATION_ID);
  if (ids) return ids;
  const code = /`([^`]+)`/.exec(item);
  if (code?.[1]?.trim()) return [code[1].trim()];
  const link = /\]\(\s*<?([^)\s>]+)/.exec(item);
  if (link?.[1]) return [link[1]];
  const bare = item.replace(/^\*\*(.+)\*\*$/, "$1").trim();
  const annotated = /^(\S+?)(?::\s+|\s+[(\u2014\u2013-])/.exec(bare);
  if (annotated?.[1] && /[/.]/.test(annotated[1])) return [annotated[1]];
  return bare === "" ? [] : [bare];
}

const SEVERITY = /^[\s*_[(]*(critical|warning|suggestion)s?(?![a-z])/i;

/**
 * A Risks item as `{severity, text}`, or null when it names no severity. Accepted spellings, any case:
 * `**CRITICAL**: text`, `**CRITICAL:** text`, `CRITICAL: text`, `[CRITICAL] text`, `**Warning** - text`,
 * `CRITICAL — text`. The severity must be set off by a colon, dash, bracket or closing emphasis, so
 * "Warning signs in the logs" is not a WARNING. Never throws.
 */
export function parseRiskItem(item: string): { severity: Risk["severity"]; text: string } | null {
  const match = SEVERITY.exec(item);
  if (!match) return null;
  const opened = countEmphasis(/^[\s*_[(]*/.exec(item)?.[0] ?? "");
  const rest = item.slice(match[0].length);
  const before = /^[\s*_\])]*/.exec(rest)?.[0] ?? "";
  const closed = countEmphasis(before);
  let consumed = before.length;
  let punctuated = /[\])]/.test(before);
  if (/^[:\-\u2013\u2014]/.test(rest.slice(consumed))) {
    consumed += 1;
    punctuated = true;
    // `**CRITICAL:** text`: the emphasis closes after the colon; eat it, but never the text's own.
    const after = /^\s*([*_]*)\s*/.exec(rest.slice(consumed));
    const stars = after?.[1]?.length ?? 0;
    const own =
      stars > 0 && stars <= opened - closed
        ? (after?.[0].length ?? 0)
        : /^\s*/.exec(rest.slice(consumed))?.[0].length;
    consumed += own ?? 0;
  }
  if (!punctuated && !(opened > 0 && closed > 0)) return null;
  const severity = (match[1] ?? "").toUpperCase() as Risk["severity"];
  return { severity, text: rest.slice(consumed).trim() };
}

function countEmphasis(text: string): number {
  return (text.match(/[*_]/g) ?? []).length;
}
