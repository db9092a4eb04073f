/** Years 0000–9999: `toISOString` writes these with four digits (others get a sign and six). */
const FOUR_DIGIT_YEARS_END_MS = 253_402_300_800_000;

// The last second formatted, so the many timestamps of one second cost a concatenation each.
let cachedSecond = Number.NaN;
let cachedPrefix = "";

const MILLIS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}Z`);

/**
 * `date.toISOString()` (`2025-01-01T00:00:00.000Z`), without formatting the date again when the last
 * call was in the same second: a trace stamps many rows per second (measured ~0.45 µs per
 * `toISOString` on Node 20, ~0.05 µs here). Contract: the same string as `toISOString` for every
 * date; throws the same RangeError for an invalid date.
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= 0 && ms < FOUR_DIGIT_YEARS_END_MS)) return date.toISOString();
  const within = ms % 1000;
  const second = ms - within;
  if (second !== cachedSecond) {
    cachedPrefix = date.toISOString().slice(0, 20);
    cachedSecond = second;
  }
  return cachedPrefix + (MILLIS[within] as string);
}
