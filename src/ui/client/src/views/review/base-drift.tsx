import { useEffect, useState } from "preact/hooks";
import type { BaseDrift } from "../../../../server/review/review-types.js";
import { fetchBaseDrift } from "../../api.js";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** One line: how far the base moved since the run started, and whether the run's work still merges. */
export function driftLine(d: BaseDrift): string {
  if (d.base === null || d.behind === null) return d.note ?? "";
  const moved =
    d.behind === 0
      ? `${d.base} has not moved since the run started`
      : `${d.base} has gained ${plural(d.behind, "commit")} since the run started`;
  if (d.conflicts === null) return `${moved}; ${d.note ?? "whether it would conflict is not known"}`;
  if (d.behind === 0) return `${moved}: its work applies as it is`;
  return d.conflicts.length === 0
    ? `${moved}: its work would still merge cleanly`
    : `${moved}: merging its work would conflict in ${d.conflicts.join(", ")}`;
}

/**
 * The base of a finished run the Merge panel does not cover (not accepted): how far it moved and
 * whether the run's work (committed, or its last checkpoint) would still merge.
 */
export function BaseDriftLine({ adwId, version }: { adwId: string; version: number }) {
  const [drift, setDrift] = useState<BaseDrift | null>(null);
  useEffect(() => {
    let gone = false;
    fetchBaseDrift(adwId).then(
      (d) => !gone && setDrift(d),
      () => {},
    );
    return () => {
      gone = true;
    };
  }, [adwId, version]);
  if (drift === null) return null;
  const conflicted = (drift.conflicts?.length ?? 0) > 0;
  return (
    <p class={`base-drift ${conflicted ? "error-line" : "muted"}`} data-behind={drift.behind ?? ""}>
      Base: {driftLine(drift)}
    </p>
  );
}
