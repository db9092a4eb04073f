import type { PathChange } from "../gates/gate.js";
import type { BoundaryRule } from "./write-boundary-rules.js";

/**
 * One change an agent made outside its boundary during one send, and whether sssf undid it. `path`
 * is repo-relative inside the run root, `../name` in the run root's parent folder, absolute elsewhere.
 */
export interface BoundaryBreach {
  path: string;
  change: PathChange["change"];
  /** The other side of a rename. */
  previousPath?: string;
  rule: BoundaryRule;
  restored: boolean;
  /** Why the path was not restored, or a limit worth knowing. */
  note?: string;
  /**
   * In the operator's checkout: the blob (in its repository) holding what the path held when sssf
   * undid the change, so a change that was someone else's after all is never lost.
   */
  keptBlob?: string;
  /** Instead of a blob, for a file too big to copy: where sssf moved what it held. */
  keptPath?: string;
}

/** Where what a path held went before sssf undid its change: a blob, or a file moved aside. */
export interface KeptCopy {
  blob?: string;
  movedTo?: string;
}

/** A restore's outcome with the copy that keeps what the path held, when one was kept. */
export function withKeptCopy(
  outcome: { restored: boolean; note?: string },
  kept: KeptCopy | null | undefined,
): Pick<BoundaryBreach, "restored" | "note" | "keptBlob" | "keptPath"> {
  return {
    restored: outcome.restored,
    ...(outcome.note ? { note: outcome.note } : {}),
    ...(kept?.blob ? { keptBlob: kept.blob } : {}),
    ...(kept?.movedTo ? { keptPath: kept.movedTo } : {}),
  };
}

/** Where what the path held went, for the person watching: `git cat-file blob <id>`, or the file moved aside. */
export function keptCopyText(breach: BoundaryBreach): string | null {
  if (breach.keptBlob) return `what it held is kept: git cat-file blob ${breach.keptBlob}`;
  if (breach.keptPath) return `what it held was moved to ${breach.keptPath}`;
  return null;
}

/** `.env (modified, protected)`, `b.txt (renamed from a.txt, outside_writes)`: the breach in one phrase. */
export function breachLabel(breach: BoundaryBreach): string {
  const change =
    breach.change === "renamed" && breach.previousPath
      ? `renamed from ${breach.previousPath}`
      : breach.change;
  return `${breach.path} (${change}, ${breach.rule})`;
}

/** The `error` event's name for one breach. */
export function breachEventName(breach: BoundaryBreach): string {
  return `write outside boundary: ${breachLabel(breach)}`;
}

/** The `error` event's payload for one breach (snake_case wire fields). */
export function breachPayload(breach: BoundaryBreach): Record<string, unknown> {
  return {
    path: breach.path,
    change: breach.change,
    ...(breach.previousPath ? { previous_path: breach.previousPath } : {}),
    rule: breach.rule,
    restored: breach.restored,
    ...(breach.note ? { note: breach.note } : {}),
    ...(breach.keptBlob ? { kept_blob: breach.keptBlob } : {}),
    ...(breach.keptPath ? { kept_path: breach.keptPath } : {}),
  };
}

/** The phase failure reason naming every breached path and whether it was restored. */
export function breachReason(agent: string, breaches: readonly BoundaryBreach[]): string {
  const items = breaches.map(
    (b) =>
      `${breachLabel(b)} ${b.restored ? `restored${b.note ? ` (${b.note})` : ""}` : `NOT restored${b.note ? `: ${b.note}` : ""}`}`,
  );
  return `${agent} wrote outside its boundary: ${items.join("; ")}`;
}
