import { claimedList } from "./claimed-list.js";
import { defineGate, type Gate, type PathChange } from "./gate.js";
import { resolveClaimedPath } from "./resolve-claimed-path.js";

/** Any envelope with a `changed_files` list (BuildOutput and alike). */
export interface ChangedFilesClaim {
  changed_files?: readonly string[];
}

/**
 * The claimed `changed_files` must equal the set of paths the phase changed (`context.phaseChanges()`),
 * deletions included; a rename counts as both its old and its new path. One check per path, sorted:
 * claimed and changed passes with the kind ("modified", "deleted", "renamed from a.ts"…), claimed but
 * unchanged fails "claimed but not changed", changed but unclaimed fails "changed but not claimed (kind)".
 * Claimed paths are normalized against the repo root; an escaping claim is a violation. Defined with
 * `usesPhaseChanges`. Rejects only when `phaseChanges()` rejects.
 */
export const diffMatchesClaims: Gate<ChangedFilesClaim> = defineGate<ChangedFilesClaim>(
  "diffMatchesClaims",
  async (envelope, context, report) => {
    const actual = describeChanges(await context.phaseChanges());
    const claimed = new Set<string>();
    for (const entry of claimedList(envelope.changed_files)) {
      const resolved = resolveClaimedPath(context.repoRoot, entry);
      if (resolved.ok) claimed.add(resolved.relative);
      else report.check(entry, false, resolved.reason);
    }
    const paths = [...new Set([...claimed, ...actual.keys()])].sort();
    if (paths.length === 0) {
      report.check("changed_files", true, "none claimed, none changed");
      return;
    }
    for (const path of paths) {
      const kind = actual.get(path);
      if (kind === undefined) report.check(path, false, "claimed but not changed");
      else if (claimed.has(path)) report.check(path, true, kind);
      else report.check(path, false, `changed but not claimed (${kind})`);
    }
  },
  { usesPhaseChanges: true },
);

/** Every path the phase touched, with how; a rename contributes its old and its new path. */
function describeChanges(changes: readonly PathChange[]): Map<string, string> {
  const kinds = new Map<string, string>();
  for (const change of changes) {
    if (change.change === "renamed" && change.previousPath !== undefined) {
      kinds.set(change.path, `renamed from ${change.previousPath}`);
      kinds.set(change.previousPath, `renamed to ${change.path}`);
    } else {
      kinds.set(change.path, change.change);
    }
  }
  return kinds;
}
