import { useEffect, useState } from "preact/hooks";
import type { PhaseRow } from "../../../../../trace/events.js";
import type { PhaseChanges, PhaseTree } from "../../../../server/review/review-types.js";
import { fetchPhaseChanges, fetchPhaseTreeDiff } from "../../api.js";
import { DiffView, Lazy } from "../../diff-block.js";
import { routeHref } from "../../route.js";
import { Fold } from "../../text.js";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function PhaseTreeFold({ adwId, tree }: { adwId: string; tree: PhaseTree }) {
  return (
    <div class="phase-tree-diff" data-phase-id={tree.phase_id}>
      <Fold
        title={
          <>
            #{tree.number} {tree.name} <span class="muted">· {plural(tree.files.length, "file")}</span>
          </>
        }
      >
        <p class="muted">
          <a href={routeHref({ view: "phase", adwId, phaseId: tree.phase_id })}>the phase</a> · from
          checkpoint <span class="mono">{tree.before.slice(0, 12)}</span> to{" "}
          <span class="mono">{(tree.after ?? "").slice(0, 12)}</span>
        </p>
        <Lazy
          load={() => fetchPhaseTreeDiff(adwId, { phase: tree.phase_id })}
          render={(d) => <DiffView diff={d} />}
        />
      </Fold>
    </div>
  );
}

/**
 * What each phase changed (build, then each fix round), from the checkpoints taken before every phase,
 * and the fix rounds' total against the first build. Re-read when a phase starts or ends.
 */
export function PhaseDiffs({ adwId, phases }: { adwId: string; phases: readonly PhaseRow[] }) {
  const [changes, setChanges] = useState<PhaseChanges | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = phases.map((p) => `${p.id}:${p.status}`).join(",");
  useEffect(() => {
    fetchPhaseChanges(adwId).then(setChanges, (e: Error) => setError(e.message));
  }, [adwId, key]);
  if (error) return <p class="error-line">{error}</p>;
  if (changes === null) return <p class="muted">Loading…</p>;
  const changed = changes.phases.filter((t) => t.changed === true);
  const same = changes.phases.filter((t) => t.changed === false).length;
  const pair = changes.fix_vs_build;
  const name = (id: string) => {
    const t = changes.phases.find((p) => p.phase_id === id);
    return t ? `#${t.number} ${t.name}` : id;
  };
  return (
    <div class="phase-diffs" data-ready="1">
      {changes.note ? <p class="muted phase-diffs-note">{changes.note}</p> : null}
      {changes.note === null && changed.length === 0 ? <p class="muted">No phase changed the tree.</p> : null}
      {changed.map((tree) => (
        <PhaseTreeFold key={tree.phase_id} adwId={adwId} tree={tree} />
      ))}
      {same > 0 ? <p class="muted">{plural(same, "other phase")} left the tree as it was.</p> : null}
      {pair ? (
        <div class="fix-vs-build">
          <Fold title={`Fix vs first build: after ${name(pair.from)} → after ${name(pair.to)}`}>
            <Lazy load={() => fetchPhaseTreeDiff(adwId, pair)} render={(d) => <DiffView diff={d} />} />
          </Fold>
        </div>
      ) : null}
    </div>
  );
}

/** On a phase's page: what this phase changed in the tree, when it ran in a worktree and changed it. */
export function PhaseOwnDiff({ adwId, phaseId, live }: { adwId: string; phaseId: string; live: boolean }) {
  const [tree, setTree] = useState<PhaseTree | null>(null);
  useEffect(() => {
    if (live) return;
    let gone = false;
    fetchPhaseChanges(adwId).then(
      (changes) => !gone && setTree(changes.phases.find((p) => p.phase_id === phaseId && p.changed) ?? null),
      () => {},
    );
    return () => {
      gone = true;
    };
  }, [adwId, phaseId, live]);
  if (tree === null) return null;
  return (
    <>
      <h2>What this phase changed</h2>
      <PhaseTreeFold adwId={adwId} tree={tree} />
    </>
  );
}
