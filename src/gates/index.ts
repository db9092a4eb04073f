import { artifactsCoverChanges } from "./artifacts-cover-changes.js";
import { artifactsExist } from "./artifacts-exist.js";
import { diffMatchesClaims } from "./diff-matches-claims.js";
import { filesNonEmpty } from "./files-non-empty.js";
import { jsonParses } from "./json-parses.js";
import { nextRecommendedSpecific } from "./next-recommended-specific.js";
import { statusConsistent } from "./status-consistent.js";
import { testsPass } from "./tests-pass.js";
import { verdictConsistent } from "./verdict-consistent.js";

export type { ArtifactsCoverClaim } from "./artifacts-cover-changes.js";
export type { ArtifactsClaim } from "./artifacts-exist.js";
export type { ChangedFilesClaim } from "./diff-matches-claims.js";
export type { FilesClaim } from "./files-non-empty.js";
export * from "./gate.js";
export type { JsonArtifactsClaim } from "./json-parses.js";
export { type NextRecommendedClaim, vagueAdviceProblem } from "./next-recommended-specific.js";
export { OBSERVATION_ID, observationIdCheck } from "./observation-id.js";
export { type ResolvedClaimedPath, resolveArtifactPath, resolveClaimedPath } from "./resolve-claimed-path.js";
export type { StatusClaim } from "./status-consistent.js";
export type { VerdictClaim } from "./verdict-consistent.js";

/**
 * The built-in gates. `testsPass` is a factory (it needs a suite name); the others are ready gates.
 * `statusConsistent`, `nextRecommendedSpecific` and `artifactsCoverChanges` check Markdown contract
 * reports (MarkdownResult); `artifactsCoverChanges` and `diffMatchesClaims` read the phase's changes.
 * @example ph.call({ outputType: BuildOutput, prompt, gates: [gates.diffMatchesClaims, gates.testsPass("test")] })
 */
export const gates = {
  artifactsExist,
  artifactsCoverChanges,
  filesNonEmpty,
  jsonParses,
  diffMatchesClaims,
  testsPass,
  verdictConsistent,
  statusConsistent,
  nextRecommendedSpecific,
};
