import type { FileText, RunView } from "../../../../server/api-types.js";
import type { FinalEnvelope } from "../../../../server/review/review-types.js";
import {
  ApiError,
  fetchFinalEnvelope,
  fetchPhaseChanges,
  fetchPhaseTreeDiff,
  fetchTotalDiff,
} from "../../api.js";
import { DiffView, Lazy } from "../../diff-block.js";
import { JsonBlock, TextBlock } from "../../text.js";

/** A 404 is an answer here (a run in place has no diff, a run without envelopes none): its message is shown. */
function orMissing<T>(load: () => Promise<T>): () => Promise<T | { missing: string }> {
  return () =>
    load().catch((error: Error) => {
      if (error instanceof ApiError && error.status === 404) return { missing: error.message };
      throw error;
    });
}

/**
 * What a run changed, committed or not: from its base to the last tree its checkpoints recorded (a
 * failed run commits nothing; its work is in those trees), else the branch's total diff.
 */
async function runDiff(adwId: string): Promise<FileText> {
  const changes = await fetchPhaseChanges(adwId);
  const last = changes.phases.filter((p) => p.after !== null && p.changed !== null).at(-1);
  return last === undefined
    ? fetchTotalDiff(adwId)
    : fetchPhaseTreeDiff(adwId, { from: "base", to: last.phase_id });
}

function Envelope({ found }: { found: FinalEnvelope }) {
  return (
    <>
      <p class="muted envelope-source">
        {found.output_type} of {found.phase || found.phase_id} · {found.standing}
      </p>
      {found.envelope === null ? (
        <TextBlock text={found.raw_text || "(empty reply)"} />
      ) : (
        <JsonBlock value={found.envelope} />
      )}
    </>
  );
}

/**
 * The reviewer's side by side: each run's whole change (committed or left in its worktree) and its final
 * envelope (an accepted run's last accepted one, any other run's last one), pretty-printed JSON.
 */
export function CompareReview({ runs }: { runs: [RunView, RunView] }) {
  return (
    <>
      <h2>Diffs</h2>
      <div class="side-by-side compare-diffs">
        {runs.map((run) => (
          <div key={run.session.adw_id} class="side" data-adw-id={run.session.adw_id}>
            <h3 class="mono">{run.session.adw_id}</h3>
            <Lazy
              load={orMissing(() => runDiff(run.session.adw_id))}
              render={(diff: FileText | { missing: string }) =>
                "missing" in diff ? <p class="muted">{diff.missing}</p> : <DiffView diff={diff} />
              }
            />
          </div>
        ))}
      </div>
      <h2>Final envelopes</h2>
      <div class="side-by-side compare-envelopes">
        {runs.map((run) => (
          <div key={run.session.adw_id} class="side" data-adw-id={run.session.adw_id}>
            <h3 class="mono">{run.session.adw_id}</h3>
            <Lazy
              load={orMissing(() => fetchFinalEnvelope(run.session.adw_id))}
              render={(found: FinalEnvelope | { missing: string }) =>
                "missing" in found ? <p class="muted">{found.missing}</p> : <Envelope found={found} />
              }
            />
          </div>
        ))}
      </div>
    </>
  );
}
