import { claimedList } from "./claimed-list.js";
import { defineGate, type Gate } from "./gate.js";
import { observationIdCheck } from "./observation-id.js";
import { resolveArtifactPath } from "./resolve-claimed-path.js";
import { statPath } from "./stat-path.js";

/** Any envelope with an `artifacts` list (every seed envelope has one). */
export interface ArtifactsClaim {
  artifacts?: readonly string[];
}

/**
 * Each claimed artifact resolves inside the repo root and exists. One check per artifact; a passing
 * check notes the size ("exists, 312 bytes") or "exists, directory". An observation id (`#obs_12345`,
 * the Markdown contract's engram mode) is checked for its syntax only, noted "observation id, not a
 * file". No artifacts claimed is one passing check noting "no artifacts claimed". Never throws.
 */
export const artifactsExist: Gate<ArtifactsClaim> = defineGate<ArtifactsClaim>(
  "artifactsExist",
  (envelope, context, report) => {
    const artifacts = claimedList(envelope.artifacts);
    if (artifacts.length === 0) {
      report.check("artifacts", true, "no artifacts claimed");
      return;
    }
    for (const claimed of artifacts) {
      const observation = observationIdCheck(claimed);
      if (observation) {
        report.check(claimed, observation.ok, observation.note);
        continue;
      }
      const resolved = resolveArtifactPath(context.repoRoot, context.contextHandoffDir, claimed);
      if (!resolved.ok) {
        report.check(claimed, false, resolved.reason);
        continue;
      }
      const stat = statPath(resolved.absolute);
      if (stat === null) report.check(claimed, false, "does not exist");
      else if (stat.isDirectory()) report.check(claimed, true, "exists, directory");
      else report.check(claimed, true, `exists, ${stat.size} bytes`);
    }
  },
);
