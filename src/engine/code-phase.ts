import type { CodePhase, CommitResult } from "../api/run-api.js";
import type { SssfConfig } from "../config/config-types.js";
import type { EnvelopeOf } from "../envelope/output-type.js";
import { ChangesOutput, type VerifyOutput } from "../envelope/schemas.js";
import { SssfError } from "../errors/sssf-error.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseRow } from "../trace/events.js";
import { runSuitePhase } from "./code-support.js";
import { type RunChanges, saveDiff } from "./run-changes.js";

/** What a code phase's handle works with. */
export interface CodePhaseDeps {
  row: PhaseRow;
  config: SssfConfig;
  trace: SessionTrace;
  signal: AbortSignal;
  changes: RunChanges;
  /** The session directory: captured diffs go to its `changes/`. */
  sessionRoot: string;
  log: CodePhase["log"];
  /** Makes an envelope the run's default `previous`. */
  setLastEnvelope(envelope: object): void;
  /** The phase ran to its end but what it found is a failure (a failing suite). */
  markFailed(why: string): void;
}

/**
 * The handle a code phase's body receives: quality suites, hand-offs through the envelope door, the
 * run's diff as a `ChangesOutput`, and commits of exactly the run's own changes. Every result is traced.
 */
export function codePhaseHandle(deps: CodePhaseDeps): CodePhase {
  const { row, trace } = deps;
  const name = row.name;
  const handOff: CodePhase["handOff"] = (outputType, envelope) => {
    const checked = outputType.schema.parse(envelope) as typeof envelope;
    deps.setLastEnvelope(checked);
    trace.event({
      type: "handoff",
      name: `${outputType.name} from ${name}`,
      phaseId: row.id,
      payload: { envelope: checked },
    });
    return checked;
  };
  const handle: CodePhase = {
    name,
    number: row.number,
    log: deps.log,
    runSuite: async (suite): Promise<EnvelopeOf<typeof VerifyOutput>> => {
      const result = await runSuitePhase(deps.config, suite, deps.signal);
      const envelope: EnvelopeOf<typeof VerifyOutput> = {
        status: result.passed ? "success" : "fail",
        summary: `${suite}: ${result.passed ? "passed" : `failed (exit ${result.exitCode ?? "none"})`}`,
        artifacts: [],
        notes_for_next_agent: result.passed
          ? ""
          : `The ${suite} suite fails; its output tail is in output_tail.`,
        suite,
        command: result.command,
        exit_code: result.exitCode,
        passed: result.passed,
        duration_ms: result.durationMs,
        output_tail: result.outputTail,
      };
      deps.setLastEnvelope(envelope);
      // The phase did its job, but what it found is a failure: show it as one, let the workflow go on.
      if (!result.passed) deps.markFailed(envelope.summary);
      trace.event({
        type: "log",
        name: envelope.summary,
        phaseId: row.id,
        ok: result.passed,
        payload: { envelope },
      });
      return envelope;
    },
    handOff,
    captureChanges: async () => {
      const captured = await deps.changes.capture();
      const stem = `p${String(row.number).padStart(2, "0")}-${name}`;
      const diffPath = saveDiff(deps.sessionRoot, stem, captured.diff);
      const count = captured.files.length;
      return handOff(ChangesOutput, {
        status: "success",
        summary: count === 0 ? "no changes" : `${count} file${count === 1 ? "" : "s"} changed`,
        artifacts: [],
        notes_for_next_agent: count === 0 ? "" : `The full diff is in ${diffPath}.`,
        base_ref: captured.base,
        files: captured.files.map((f) => ({
          path: f.path,
          change: f.change,
          ...(f.previousPath ? { previous_path: f.previousPath } : {}),
        })),
        diff_path: diffPath,
        diff_stat: captured.stat,
      });
    },
    commit: async (message: string): Promise<CommitResult | null> => {
      const text = message.trim();
      if (text === "") throw new SssfError("internal", `phase ${name}: empty commit message`);
      const made = await deps.changes.commit(text);
      if (made === null) {
        trace.event({ type: "log", name: "nothing to commit", phaseId: row.id, payload: {} });
        return null;
      }
      const result: CommitResult = { commit: made.commit, message: text, files: made.files };
      trace.event({
        type: "log",
        name: `committed ${made.commit.slice(0, 12)}: ${text.split("\n")[0]}`,
        phaseId: row.id,
        ok: true,
        payload: { commit: made.commit, message: text, files: made.files },
      });
      return result;
    },
  };
  return handle;
}
