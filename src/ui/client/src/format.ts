/** Display formats shared by the views. Every function returns plain text and never throws. */

import { truncateGraphemes } from "../../../util/terminal-text.js";

/** `850 ms`, `12.3 s`, `4 min 05 s`, `1 h 02 min`; `–` for null. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(Math.floor(seconds % 60)).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** `950`, `12.4k`, `3.1M`. */
export function formatTokens(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "–";
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** `$0.0123`, `$1.25`; `–` for zero. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd) || usd === 0) return "–";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Local `YYYY-MM-DD HH:MM:SS` of an ISO timestamp. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The time-of-day part of {@link formatTime}, with milliseconds. */
export function formatClock(iso: string | null | undefined): string {
  if (!iso) return "–";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${formatTime(iso).slice(11)}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}

/**
 * At most `max` graphemes, the last an ellipsis when cut; never half an emoji or surrogate pair.
 * The server's own cut (util/terminal-text.ts), which segments a long text in windows.
 */
export const truncate = truncateGraphemes;

/** The value of a JSON text, or undefined when it does not parse (a shortened or broken text). */
export function parseJson(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Milliseconds from `startIso` to `endIso` or, while running, to `nowMs`. */
export function elapsed(startIso: string, endIso: string | null, nowMs: number): number {
  const start = Date.parse(startIso);
  const end = endIso === null ? nowMs : Date.parse(endIso);
  return Math.max(0, end - start);
}
