/**
 * The string entries of an envelope list field. Gates receive validated envelopes, but a gate reused on a
 * looser envelope must not crash on a missing or odd field, so anything else counts as "nothing claimed".
 * Never throws.
 */
export function claimedList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is string => typeof entry === "string");
}
