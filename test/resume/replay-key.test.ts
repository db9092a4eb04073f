import { describe, expect, it } from "vitest";
import type { PhaseIdentity } from "../../src/api/durable-steps.js";
import { inputHash } from "../../src/engine/durable/input-hash.js";
import { LocalDurableRun } from "../../src/engine/durable/local-durable-run.js";
import { locate, type RunRoots, relocate } from "../../src/engine/durable/run-roots.js";
import { buildJournal, type StepJournal, stepKey } from "../../src/engine/durable/step-journal.js";
import type { SessionTrace } from "../../src/session/session-trace.js";
import type { StepRow } from "../../src/trace/events.js";
import { phaseRow } from "../trace/trace-fixtures.js";

/** The run's folders under `base` (none of them exists: only their spelling matters). */
function rootsAt(base: string): RunRoots {
  return {
    run_root: `${base}/repo/adws/adw_data/.worktrees/abcd0001`,
    worktree: `${base}/repo/adws/adw_data/.worktrees/abcd0001`,
    checkout: `${base}/repo`,
    session: `${base}/repo/adws/adw_data/sessions/abcd0001`,
    sessions: `${base}/repo/adws/adw_data/sessions`,
    data_dir: `${base}/repo/adws/adw_data`,
  };
}

const HERE = rootsAt("/nonexistent/first");
const THERE = rootsAt("/nonexistent/second/place");

/** A call's inputs as the engine hashes them, rendered where `roots` are. */
function callInputs(roots: RunRoots) {
  return {
    agent: "builder",
    output_type: "BuildOutput",
    format: "json",
    system: "# agent",
    user: `Write notes to ${roots.session}/context_handoff.\nEdit ${roots.run_root}/src/x.ts, not ${roots.checkout}/src/x.ts.`,
    previous: { status: "success", diff_path: `${roots.session}/changes/p03-commit.diff` },
  };
}

describe("the replay key", () => {
  it("names the run's folders instead of spelling them, so it is the same after a move", () => {
    expect(locate(callInputs(HERE), HERE)).toEqual({
      ...callInputs(HERE),
      user: "Write notes to <session>/context_handoff.\nEdit <run_root>/src/x.ts, not <checkout>/src/x.ts.",
      previous: { status: "success", diff_path: "<session>/changes/p03-commit.diff" },
    });
    expect(inputHash(callInputs(THERE), THERE)).toBe(inputHash(callInputs(HERE), HERE));
    // Spelled as they are (the format of older journals), they differ.
    expect(inputHash(callInputs(THERE))).not.toBe(inputHash(callInputs(HERE)));
    // What the inputs say still counts.
    expect(inputHash({ ...callInputs(THERE), system: "# other" }, THERE)).not.toBe(
      inputHash(callInputs(HERE), HERE),
    );
  });

  it("replaces whole paths only", () => {
    const text = `${HERE.checkout}2/x ${HERE.checkout}.bak /x${HERE.checkout}/y ${HERE.checkout}`;
    expect(locate(text, HERE)).toBe(
      `${HERE.checkout}2/x ${HERE.checkout}.bak /x${HERE.checkout}/y <checkout>`,
    );
  });

  it("relocates a journaled result to where the folders are now, keys included", () => {
    const result = { artifacts: [`${HERE.session}/context_handoff/plan.md`], [`${HERE.run_root}/a`]: 1 };
    expect(relocate(result, HERE, THERE)).toEqual({
      artifacts: [`${THERE.session}/context_handoff/plan.md`],
      [`${THERE.run_root}/a`]: 1,
    });
    expect(relocate(result, undefined, THERE)).toBe(result);
  });
});

/** A trace that keeps what the executor writes. */
function memoryTrace(): SessionTrace & { steps: StepRow[] } {
  const steps: StepRow[] = [];
  return {
    adwId: "abcd0001",
    steps,
    writeSteps: async (rows: StepRow[]) => {
      steps.push(...rows);
    },
    queueSteps: (rows: StepRow[]) => steps.push(...rows),
    event: () => undefined,
  } as unknown as SessionTrace & { steps: StepRow[] };
}

const IDENTITY: PhaseIdentity = {
  workflow: "w",
  position: 1,
  name: "build",
  kind: "agent",
  owner: "builder",
  previous: null,
};

/** A journal of one completed `build` phase with one call, hashed as `hash` says, written at `roots`. */
function journalOf(hash: (inputs: unknown) => string, roots: RunRoots | undefined): StepJournal {
  const row = phaseRow("abcd0001", 1, "2026-01-01T00:00:00.000Z", { id: "abcd0001-p01", name: "build" });
  const at = (key: string, op: string, inputHash: string, result: unknown, position = 1): StepRow => ({
    id: `abcd0001-a1-${key}`,
    adw_id: "abcd0001",
    attempt: 1,
    key,
    position,
    phase_id: position === 0 ? "" : row.id,
    op,
    input_hash: inputHash,
    result_json: JSON.stringify(result),
    replayed: 0,
    created_at: "2026-01-01T00:00:00.000Z",
  });
  const { workflow, name, kind, owner, previous } = IDENTITY;
  const start = { workflow: "w", request: "r", agent: null, merge: false, yes: false, previous: null };
  const steps = [
    at("start", "start", "", roots === undefined ? start : { ...start, roots }, 0),
    at(stepKey(1, "build", "checkpoint", 1), "checkpoint", "", {
      commit: "c",
      head: "h",
      branch: null,
      parallel: false,
    }),
    at(stepKey(1, "build", "call", 1), "call", hash(callInputs(HERE)), {
      summary: "built",
      artifacts: [`${HERE.session}/notes.md`],
    }),
    at(stepKey(1, "build", "phase", 1), "phase", hash({ workflow, name, kind, owner, previous }), {
      status: "success",
    }),
  ];
  return buildJournal(steps, [row]);
}

/** Replays the `build` phase at `roots` against `journal`; resolves to the call's result, or why it diverged. */
async function replay(journal: StepJournal, roots: RunRoots): Promise<unknown> {
  const run = new LocalDurableRun(memoryTrace(), journal, { attempt: 2, replay: true, roots });
  const phase = run.phase(IDENTITY);
  if (phase.replays === null) return "runs live";
  try {
    return await phase.step("call", callInputs(roots), async () => "ran");
  } catch (error) {
    return (error as Error).message;
  }
}

describe("replaying a journal", () => {
  it("keeps the checkpoint apart from the phase's steps", () => {
    const journal = journalOf((inputs) => inputHash(inputs, HERE), HERE);
    expect(journal.checkpoints.get(1)).toEqual({ commit: "c", head: "h", branch: null, parallel: false });
    expect(journal.phases.get(1)?.steps.map((step) => step.op)).toEqual(["call"]);
  });

  it("matches in another folder and hands the result on with its paths there", async () => {
    const journal = journalOf((inputs) => inputHash(inputs, HERE), HERE);
    expect(await replay(journal, THERE)).toEqual({
      summary: "built",
      artifacts: [`${THERE.session}/notes.md`],
    });
    expect(await replay(journal, HERE)).toEqual({
      summary: "built",
      artifacts: [`${HERE.session}/notes.md`],
    });
  });

  it("still matches an older journal (absolute hashes, no roots) where it was written, not elsewhere", async () => {
    const journal = journalOf((inputs) => inputHash(inputs), undefined);
    expect(await replay(journal, HERE)).toEqual({
      summary: "built",
      artifacts: [`${HERE.session}/notes.md`],
    });
    expect(await replay(journal, THERE)).toMatch(/the inputs of call#1 changed since attempt 1/);
  });
});
