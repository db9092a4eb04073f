/** A valid observation id: `#obs_` then letters, digits, `_` or `-`. */
export const OBSERVATION_ID = /^#obs_[A-Za-z0-9_-]+$/;

/**
 * How the artifact gates treat a claimed artifact that is an observation id (engram mode of the Markdown
 * contract, `#obs_12345`) rather than a path: null when `claimed` does not start with `#obs`, so it is
 * checked as a path; otherwise a check of its syntax only — there is no store to look it up in. Never
 * throws.
 */
export function observationIdCheck(claimed: string): { ok: boolean; note: string } | null {
  if (!claimed.startsWith("#obs")) return null;
  return OBSERVATION_ID.test(claimed)
    ? { ok: true, note: "observation id, not a file" }
    : { ok: false, note: "not a valid observation id: #obs_ followed by letters, digits, _ or -" };
}
