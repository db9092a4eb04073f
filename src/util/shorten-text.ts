import { redactSecrets } from "./secrets/redact.js";
import { graphemeCount, graphemeCountUpTo, graphemes, truncateGraphemes } from "./terminal-text.js";

/**
 * `text`, secrets redacted (`redactSecrets`, before any cut: a secret cut in half is no longer one it
 * knows), when it has at most `max` graphemes, else cut to `max` graphemes ending in `marker` (the
 * marker's own characters counted): `shortenText(s, 60)` keeps 57 and adds "...". For quoting a value
 * in a message. Never splits a character (an emoji with its modifiers, a surrogate pair, a letter and
 * its accents). Never throws.
 * @example shortenText("👍🏽".repeat(70), 60); // 57 thumbs, then "..."
 */
export function shortenText(value: string, max: number, marker = "..."): string {
  const text = redactSecrets(value);
  if (text.length <= max || graphemeCountUpTo(text, max) <= max) return text;
  return truncateGraphemes(text, Math.max(1, max - graphemeCount(marker) + 1), marker);
}

/**
 * The longest start of `text` made of whole graphemes and at most `maxUnits` UTF-16 code units (a
 * size bound, as `text.slice(0, maxUnits)` would be, without cutting a character in half). Returns
 * `text` itself when it fits. Never throws.
 */
export function sliceWholeGraphemes(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  let end = 0;
  for (const { index, segment } of graphemes(text)) {
    if (index + segment.length > maxUnits) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
