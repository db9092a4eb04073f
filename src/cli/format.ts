import { styleText } from "node:util";
import { redactSecrets } from "../util/secrets/redact.js";
import { graphemeCount, terminalSafe, truncateGraphemes } from "../util/terminal-text.js";

type Style = Parameters<typeof styleText>[0];

const colorEnabled = (stream: NodeJS.WriteStream): boolean =>
  Boolean(stream.isTTY) && process.env.NO_COLOR === undefined && process.env.TERM !== "dumb";

/** Styles text for a stream, or returns it plain when the stream is not a color terminal. */
export function paint(stream: NodeJS.WriteStream, style: Style, text: string): string {
  return colorEnabled(stream) ? styleText(style, text) : text;
}

/** `ms` as `850ms`, `1.5s` or `2m05s`; `-` for null. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "-";
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
}

/**
 * A token count with thousands separators (`12,345`), as `toLocaleString("en-US")` writes it, without
 * the ~8 ms ICU spends setting up a number format the first time.
 */
export function formatTokens(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
  return n < 0 ? `-${digits}` : digits;
}

/** A cost in dollars: `$0`, four decimals under a cent, else two. */
export function formatCost(usd: number): string {
  return usd === 0 ? "$0" : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/**
 * Renders rows as aligned columns (no borders: easy to grep and paste). Every cell is made safe for a
 * terminal first (controls and newlines as visible escapes, see `terminalSafe`); widths count graphemes.
 */
export function table(headers: string[], rows: string[][]): string {
  const safeRows = [headers, ...rows].map((cells) => cells.map((cell) => terminalSafe(cell)));
  const widths = headers.map(() => 0);
  for (const cells of safeRows)
    cells.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, graphemeCount(cell));
    });
  const pad = (cell: string, width: number) => cell + " ".repeat(Math.max(0, width - graphemeCount(cell)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return safeRows.map(line).join("\n");
}

/**
 * `text` on one line: runs of whitespace (newlines, tabs, CR) become one space, the ends are trimmed,
 * and it is cut to at most `max` graphemes ending in "…" (never half an emoji or surrogate pair).
 */
export function truncate(text: string, max: number): string {
  return truncateGraphemes(text.replace(/\s+/g, " ").trim(), max);
}

/**
 * Agent-derived text for one line of output: secrets redacted first (cutting could hide one from the
 * patterns), then flattened and cut to `max` graphemes when given, then made safe for the terminal.
 */
export function agentText(text: string, max?: number): string {
  const redacted = redactSecrets(text);
  return terminalSafe(max === undefined ? redacted : truncate(redacted, max));
}
