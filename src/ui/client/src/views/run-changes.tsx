import { useEffect, useState } from "preact/hooks";
import type { PhaseRow } from "../../../../trace/events.js";
import type { RunChanges as Changes, RunCommit } from "../../../server/api-types.js";
import { fetchChanges, fetchCommitDiff, fetchPhaseDiff, fetchTotalDiff } from "../api.js";
import { DiffView, Lazy } from "../diff-block.js";
import { formatClock } from "../format.js";
import { routeHref } from "../route.js";
import { Fold, TextBlock } from "../text.js";

function phaseLabel(phases: readonly PhaseRow[], phaseId: string | null): string {
  const phase = phases.find((p) => p.id === phaseId);
  return phase ? `#${phase.number} ${phase.name}` : "";
}

/** One commit: sha, subject, files, and its `git show` when opened. */
export function CommitFold({ adwId, commit, label }: { adwId: string; commit: RunCommit; label?: string }) {
  return (
    <div class="commit" data-sha={commit.sha}>
      <Fold
        title={
          <>
            <span class="mono">{commit.sha.slice(0, 12)}</span> {commit.subject}{" "}
            <span class="muted">
              · {commit.files.length} file{commit.files.length === 1 ? "" : "s"} · {formatClock(commit.at)}
              {label ? ` · ${label}` : ""}
            </span>
          </>
        }
      >
        <Lazy load={() => fetchCommitDiff(adwId, commit.sha)} render={(diff) => <DiffView diff={diff} />} />
      </Fold>
    </div>
  );
}

/** A phase's saved diff (`<session>/changes/…`), fetched when opened. */
export function PhaseDiffFold({ adwId, phaseId, title }: { adwId: string; phaseId: string; title: string }) {
  return (
    <div class="phase-diff" data-phase-id={phaseId}>
      <Fold title={title}>
        <Lazy load={() => fetchPhaseDiff(adwId, phaseId)} render={(diff) => <DiffView diff={diff} />} />
      </Fold>
    </div>
  );
}

/**
 * What the run changed: the total diff of its branch, every commit its code phases made and every
 * diff they saved, each opened on demand. Re-read when a phase starts or ends.
 */
export function RunChanges({ adwId, phases }: { adwId: string; phases: readonly PhaseRow[] }) {
  const [changes, setChanges] = useState<Changes | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = phases.map((p) => `${p.id}:${p.status}`).join(",");
  useEffect(() => {
    fetchChanges(adwId).then(setChanges, (e: Error) => setError(e.message));
  }, [adwId, key]);
  if (error) return <p class="error-line">{error}</p>;
  if (changes === null) return <p class="muted">Loading…</p>;
  const { commits, phase_diffs: diffs } = changes;
  return (
    <div class="run-changes" data-ready="1">
      {changes.total ? (
        <div class="total-diff">
          <Fold
            title={
              <>
                Total diff{" "}
                <span class="mono">{`${(changes.base_ref ?? "").slice(0, 12)}...${changes.branch}`}</span>
              </>
            }
          >
            <Lazy load={() => fetchTotalDiff(adwId)} render={(diff) => <DiffView diff={diff} />} />
          </Fold>
        </div>
      ) : (
        <p class="muted">The run worked in place (no branch of its own): no total diff.</p>
      )}
      <h3>Commits ({commits.length})</h3>
      {commits.length === 0 ? <p class="muted">No commits.</p> : null}
      {commits.map((commit) => (
        <CommitFold
          key={commit.sha}
          adwId={adwId}
          commit={commit}
          label={phaseLabel(phases, commit.phase_id)}
        />
      ))}
      <h3>Saved phase diffs ({diffs.length})</h3>
      {diffs.length === 0 ? <p class="muted">No code phase saved a diff.</p> : null}
      {diffs.map((d) => (
        <div key={d.envelope_id}>
          <p>
            <a href={routeHref({ view: "phase", adwId, phaseId: d.phase_id })}>
              {phaseLabel(phases, d.phase_id)}
            </a>
            : {d.summary}
          </p>
          {d.diff_stat ? <TextBlock text={d.diff_stat} className="diff-stat" /> : null}
          {d.file ? (
            <PhaseDiffFold adwId={adwId} phaseId={d.phase_id} title={`Diff (${d.file})`} />
          ) : (
            <p class="muted">The diff file is not in the session directory.</p>
          )}
        </div>
      ))}
    </div>
  );
}
