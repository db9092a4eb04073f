import { claimedList } from "./claimed-list.js";
import { defineGate, type Gate } from "./gate.js";
import { observationIdCheck } from "./observation-id.js";
import { resolveArtifactPath, resolveClaimedPath } from "./resolve-claimed-path.js";
import { statPath } from "./stat-path.js";

/** Any envelope with `artifacts` and/or `changed_files` lists. */
export interface FilesClaim {
  artifacts?: readonly string[];
  changed_files?: readonly string[];
}

/**
 * Each claimed artifact and each claimed changed file that exists is a non-empty regular file. A missing
 * artifact is a violation; a missing `changed_files` entry is a claimed deletion, skipped with a passing
 * note. An artifact that is an observation id (`#obs_12345`) is checked for its syntax only, noted
 * "observation id, not a file". Passing checks note the size ("312 bytes"). Paths escaping the repo root are violations; a path
 * claimed twice (in either list) is checked once. Never throws.
 */
export const filesNonEmpty: Gate<FilesClaim> = defineGate<FilesClaim>(
  "filesNonEmpty",
  (envelope, context, report) => {
    const artifacts = claimedList(envelope.artifacts);
    const changed = claimedList(envelope.changed_files);
    if (artifacts.length === 0 && changed.length === 0) {
      report.check("files", true, "no files claimed");
      return;
    }
    const seen = new Set<string>();
    const claims = [
      ...artifacts.map((claimed) => ({ claimed, mustExist: true })),
      ...changed.map((claimed) => ({ claimed, mustExist: false })),
    ];
    for (const { claimed, mustExist } of claims) {
      const observation = mustExist ? observationIdCheck(claimed) : null;
      if (observation) {
        if (!seen.has(claimed)) report.check(claimed, observation.ok, observation.note);
        seen.add(claimed);
        continue;
      }
      const resolved = mustExist
        ? resolveArtifactPath(context.repoRoot, context.contextHandoffDir, claimed)
        : resolveClaimedPath(context.repoRoot, claimed);
      if (!resolved.ok) {
        report.check(claimed, false, resolved.reason);
        continue;
      }
      if (seen.has(resolved.relative)) continue;
      seen.add(resolved.relative);
      const stat = statPath(resolved.absolute);
      if (stat === null) {
        if (mustExist) report.check(claimed, false, "does not exist");
        else report.check(claimed, true, "does not exist: claimed deletion, skipped");
      } else if (!stat.isFile()) {
        report.check(
          claimed,
          false,
          stat.isDirectory() ? "is a directory, not a file" : "is not a regular file",
        );
      } else {
        report.check(claimed, stat.size > 0, stat.size > 0 ? `${stat.size} bytes` : "empty file");
      }
    }
  },
);
