/**
 * A live phase's checkpoint (docs/resume.md): before it runs, the worktree is put back to the
 * checkpoint an interrupted attempt took before the same phase, then this attempt's own is taken and
 * journaled. In place nothing is put back or taken: the checkout holds the operator's own work too.
 */
import type { DurablePhase, PhaseCheckpoint } from "../../api/durable-steps.js";
import {
  checkpointRef,
  hasCommit,
  restoreWorkCheckpoint,
  takeWorkCheckpoint,
} from "../../code/work-checkpoint.js";
import type { PhaseRow } from "../../trace/events.js";

export interface RunCheckpoints {
  top: string;
  /** sssf's own paths and the linked dependency folders (absolute). */
  exclude: string[];
}

/** What a checkpoint needs of the run: its id, where it works, and its lines. */
export interface CheckpointContext {
  adwId: string;
  /** Where checkpoints are taken; null in place. */
  place: RunCheckpoints | null;
  /** True while phases run side by side (a checkpoint then holds their work too). */
  inParallel: () => boolean;
  /** Forgets what the run's change tracking saw, after the worktree was put back. */
  restartChanges: () => Promise<void>;
  /** A line for the trace and the terminal about phase `row`. */
  note: (row: PhaseRow, message: string, ok: boolean, payload: Record<string, unknown>) => void;
}

/**
 * Before a live agent or code phase: puts the worktree back to the checkpoint an interrupted
 * attempt took before the same phase (a resume), then takes this attempt's checkpoint and journals
 * it. In place nothing is put back or taken: the checkout holds the operator's own work too.
 */
export async function checkpointBefore(
  ctx: CheckpointContext,
  row: PhaseRow,
  durable: DurablePhase,
  position: number,
): Promise<void> {
  const place = ctx.place;
  if (place === null) {
    if (durable.rerun !== null)
      ctx.note(
        row,
        `resume: ${row.name} runs again on the checkout as the interrupted attempt left it: an in-place run's checkout holds your own work too, so nothing is put back (docs/resume.md)`,
        false,
        { in_place: true, position },
      );
    await durable.checkpointed(null);
    return;
  }
  if (durable.rerun !== null) await rollBack(ctx, row, durable.rerun.checkpoint, place);
  let taken: Awaited<ReturnType<typeof takeWorkCheckpoint>>;
  try {
    taken = await takeWorkCheckpoint(place.top, {
      ref: checkpointRef(ctx.adwId),
      exclude: place.exclude,
      message: `sssf ${ctx.adwId}: checkpoint before ${row.name} (phase ${row.number}, position ${position})`,
    });
  } catch (error) {
    ctx.note(
      row,
      `no checkpoint before ${row.name}: ${(error as Error).message}; a resume after a crash in it would re-run it on what it leaves`,
      false,
      { checkpoint: null, position },
    );
    await durable.checkpointed(null);
    return;
  }
  await durable.checkpointed({ ...taken, parallel: ctx.inParallel() });
}

/** Puts the worktree back to `checkpoint` for the re-run of an interrupted phase, or says why not. */
async function rollBack(
  ctx: CheckpointContext,
  row: PhaseRow,
  checkpoint: PhaseCheckpoint | null,
  place: RunCheckpoints,
): Promise<void> {
  const why = (reason: string) =>
    ctx.note(
      row,
      `resume: ${row.name} runs again on the worktree as the interrupted attempt left it: ${reason}`,
      false,
      {
        checkpoint,
        restored: false,
      },
    );
  if (checkpoint === null) return why("that attempt took no checkpoint before it");
  if (checkpoint.parallel)
    return why("it ran beside other phases, whose work in progress its checkpoint holds too");
  if (!(await hasCommit(place.top, checkpoint.commit)))
    return why(`its checkpoint ${checkpoint.commit.slice(0, 12)} is not in this repository`);
  try {
    const restored = await restoreWorkCheckpoint(place.top, checkpoint, {
      ref: checkpointRef(ctx.adwId),
      exclude: place.exclude,
      message: `sssf ${ctx.adwId}: what the interrupted attempt left in ${row.name}`,
    });
    await ctx.restartChanges();
    const count = restored.paths.length;
    const head = restored.headMoved ? `, HEAD back at ${checkpoint.head.slice(0, 12)}` : "";
    const kept = restored.kept === null ? "" : `; what it left is kept as ${restored.kept.slice(0, 12)}`;
    ctx.note(
      row,
      `resume: the worktree is back at the checkpoint taken before ${row.name} (${count} path${count === 1 ? "" : "s"} put back${head})${kept}`,
      true,
      {
        checkpoint,
        restored: true,
        paths: restored.paths,
        head_moved: restored.headMoved,
        kept: restored.kept,
      },
    );
  } catch (error) {
    why(`putting back its checkpoint ${checkpoint.commit.slice(0, 12)} failed: ${(error as Error).message}`);
  }
}
