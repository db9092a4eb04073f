import path from "node:path";
import { claimedList } from "./claimed-list.js";
import { defineGate, type Gate, type GateContext, type PathChange } from "./gate.js";
import { observationIdCheck } from "./observation-id.js";
import { resolveClaimedPath } from "./resolve-claimed-path.js";

/** A Markdown contract report (MarkdownResult): its artifacts, and the text that may name a deletion. */
export interface ArtifactsCoverClaim {
  artifacts?: readonly string[];
  summary?: string;
  next_recommended?: string;
  risks?: readonly { severity: string; text: string }[];
}

/** One path the phase touched, and whether it still exists (created, modified, renamed to). */
interface Touched {
  path: string;
  kind: string;
  exists: boolean;
}

/**
 * The contract's "list ALL artifacts created or updated": every path the phase changed
 * (`context.phaseChanges()`) is covered by the report's Artifacts. A path is covered when an artifact
 * names it, or names a folder holding it (`src/theme/` covers `src/theme/toggle.ts`); the repo root
 * (`.`) and observation ids cover nothing. A path that no longer exists (deleted, or the old path of a
 * rename) cannot be listed as an artifact that exists, so it is also covered when the report's
 * Summary, Next Recommended or a risk names it. sssf's own files are not the phase's: the session's
 * `context_handoff/`, its session folder and the data folder holding it (`<data_dir>/sessions/<adw_id>/`)
 * are left out (the engine's change tracking already leaves out the data folder and the trace
 * database), but never the whole repo.
 * One check per changed path, sorted: passing notes say how it is covered ("added, listed",
 * "modified, in src/theme/"), failing ones what to list; no change at all is one passing check.
 * Defined with `usesPhaseChanges`. Rejects only when `phaseChanges()` rejects.
 *
 * @example ph.call({ outputType: MarkdownResult, format: "markdown", prompt, gates: [gates.artifactsCoverChanges] })
 */
export const artifactsCoverChanges: Gate<ArtifactsCoverClaim> = defineGate<ArtifactsCoverClaim>(
  "artifactsCoverChanges",
  async (envelope, context, report) => {
    const owned = ownedPrefixes(context);
    const touched = touchedPaths(await context.phaseChanges()).filter(
      (entry) => !owned.some((prefix) => within(entry.path, prefix)),
    );
    if (touched.length === 0) {
      report.check("artifacts", true, "the phase changed no file");
      return;
    }
    const claims = claimedPaths(envelope.artifacts, context.repoRoot);
    const prose = reportProse(envelope);
    for (const entry of touched) {
      const claim = claims.find((claimed) => within(entry.path, claimed));
      if (claim !== undefined) {
        report.check(
          entry.path,
          true,
          claim === entry.path ? `${entry.kind}, listed` : `${entry.kind}, in ${claim}/`,
        );
      } else if (!entry.exists && mentions(prose, entry.path)) {
        report.check(entry.path, true, `${entry.kind}, named in the report`);
      } else if (!entry.exists) {
        report.check(
          entry.path,
          false,
          `${entry.kind} but the report does not say so: name it in the Summary (a deleted file cannot be listed as an artifact)`,
        );
      } else {
        report.check(
          entry.path,
          false,
          `${entry.kind} but not in Artifacts: list it (or a folder holding it) under ### Artifacts`,
        );
      }
    }
  },
  { usesPhaseChanges: true },
);

/** Each path the phase touched, sorted; a rename gives its new path and its old one. */
function touchedPaths(changes: readonly PathChange[]): Touched[] {
  const touched = new Map<string, Touched>();
  for (const change of changes) {
    if (change.change === "renamed" && change.previousPath !== undefined) {
      touched.set(change.path, {
        path: change.path,
        kind: `renamed from ${change.previousPath}`,
        exists: true,
      });
      touched.set(change.previousPath, {
        path: change.previousPath,
        kind: `renamed to ${change.path}`,
        exists: false,
      });
    } else {
      touched.set(change.path, {
        path: change.path,
        kind: change.change,
        exists: change.change !== "deleted",
      });
    }
  }
  return [...touched.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The artifacts as repo-relative paths; observation ids, escaping paths and the root itself dropped. */
function claimedPaths(artifacts: readonly string[] | undefined, repoRoot: string): string[] {
  const claims: string[] = [];
  for (const artifact of claimedList(artifacts)) {
    if (observationIdCheck(artifact)) continue;
    const resolved = resolveClaimedPath(repoRoot, artifact);
    if (resolved.ok && resolved.relative !== ".") claims.push(resolved.relative);
  }
  return claims;
}

/** The report's Summary, Next Recommended and risk texts, where a deletion may be named. */
function reportProse(envelope: ArtifactsCoverClaim): string {
  const risks = Array.isArray(envelope.risks) ? envelope.risks.map((risk) => risk.text) : [];
  return [envelope.summary ?? "", envelope.next_recommended ?? "", ...risks].join("\n");
}

/**
 * Repo-relative folders holding sssf's files for this run: the context handoff, and the session folder
 * and the data folder when the handoff sits at `<data_dir>/sessions/<adw_id>/context_handoff`. A
 * folder outside the repo, or the repo root itself (`data_dir: .`), is left out: it would hide every
 * change.
 */
function ownedPrefixes(context: GateContext): string[] {
  const handoff = path.resolve(context.contextHandoffDir);
  const session = path.dirname(handoff);
  const sessions = path.dirname(session);
  const folders = [handoff];
  if (path.basename(session) === context.adwId && path.basename(sessions) === "sessions") {
    folders.push(session, path.dirname(sessions));
  }
  const root = path.resolve(context.repoRoot);
  return folders
    .map((folder) => path.relative(root, folder))
    .filter(
      (relative) =>
        relative !== "" &&
        relative !== ".." &&
        !relative.startsWith(`..${path.sep}`) &&
        !path.isAbsolute(relative),
    )
    .map((relative) => relative.split(path.sep).join("/"));
}

/** True when `text` names `file` as a whole path (`src/a.ts` is not named by `src/a.tsx`). */
function mentions(text: string, file: string): boolean {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[^\\w./-])${escaped}(?![\\w/-]|\\.\\w)`).test(text);
}

/** True when `file` is `folder` or lies inside it (repo-relative POSIX paths). */
function within(file: string, folder: string): boolean {
  return file === folder || file.startsWith(`${folder}/`);
}
