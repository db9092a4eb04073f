import { useEffect, useState } from "preact/hooks";
import type { LandResult } from "../../../../../workspace/land-run.js";
import type { MergeLook } from "../../../../../workspace/merge-look.js";
import { fetchMergeLook, postMerge } from "../../api.js";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What would land, said in one line: behind-base count and whether it merges cleanly. */
function lookLine(look: MergeLook): string {
  const what = `${plural(look.commits.length, "commit")}, ${plural(look.files.length, "file")} from ${look.branch} into ${look.base}`;
  const behind =
    look.behind === 0
      ? `${look.base} has not moved: a fast-forward`
      : `${look.base} is ${plural(look.behind, "commit")} ahead of the run's base: ${look.conflicts.length > 0 ? "it would conflict" : "a merge commit, no conflict"}`;
  return `${what} · ${behind}`;
}

/**
 * The Merge button of an accepted run whose branch exists: first what would land (GET …/merge), then
 * the merge itself (POST …/merge, the code `sssf merge` runs); its result, or the refusal line, stays on
 * the page.
 */
export function MergePanel({ adwId }: { adwId: string }) {
  const [look, setLook] = useState<MergeLook | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<LandResult | null>(null);
  useEffect(() => {
    let gone = false;
    fetchMergeLook(adwId).then(
      (seen) => !gone && setLook(seen),
      (error: Error) => !gone && setProblem(error.message),
    );
    return () => {
      gone = true;
    };
  }, [adwId]);
  if (look === null || (!look.branch_exists && done === null)) {
    return problem ? <p class="error-line merge-problem">{problem}</p> : null;
  }
  const merge = () => {
    setBusy(true);
    setProblem(null);
    postMerge(adwId).then(setDone, (error: Error) => {
      setBusy(false);
      setProblem(error.message);
    });
  };
  return (
    <div class="merge-panel">
      <h2>Merge</h2>
      {done ? (
        <p class="merge-done">{done.summary}</p>
      ) : (
        <>
          <p class="merge-look">{look.base === null ? look.refusal : lookLine(look)}</p>
          {look.conflicts.length > 0 ? (
            <p class="merge-conflicts">
              conflicts: <span class="mono">{look.conflicts.join(", ")}</span>
            </p>
          ) : null}
          {look.refusal !== null && look.base !== null ? (
            <p class="muted merge-refusal">{look.refusal}</p>
          ) : null}
          <button type="button" class="merge" disabled={busy || look.refusal !== null} onClick={merge}>
            Merge into {look.base ?? "…"}
          </button>
        </>
      )}
      {problem ? <p class="error-line merge-problem">{problem}</p> : null}
    </div>
  );
}
