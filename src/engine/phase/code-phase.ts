import { mkdirSync } from "node:fs";
import path from "node:path";
import type { DurablePhase } from "../../api/durable-steps.js";
import type { CodePhase, CommitResult, SuiteBaseline } from "../../api/run-api.js";
import type { SssfConfig } from "../../config/config-types.js";
import type { EnvelopeOf, OutputType } from "../../envelope/output-type.js";
import { ChangesOutput, VerifyOutput } from "../../envelope/schemas.js";
import { SssfError } from "../../errors/sssf-error.js";
import type { RecordFiles } from "../../session/record-files.js";
import { failedTestNames, type RunReporter } from "../../session/reporter.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { PhaseRow } from "../../trace/events.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import { redactJsonValue } from "../../util/secrets/redact-json.js";
import { runSuitePhase, suiteLogPath } from "../code-support.js";
import { type RunChanges, saveDiff } from "../run-changes.js";
import { baseCommit, cachedSuiteBaseline, suiteBaseline } from "../suite-baseline.js";
import { verifyEnvelope } from "../suite-verify.js";

/** What a code phase's handle works with. */
export interface CodePhaseDeps {
  row: PhaseRow;
  /** Each operation of the handle is one of the phase's durable steps. */
  durable: DurablePhase;
  config: SssfConfig;
  trace: SessionTrace;
  signal: AbortSignal;
  changes: RunChanges;
  /** The session directory: captured diffs go to its `changes/`, suite logs to its `code/`. */
  sessionRoot: string;
  /** The operator's checkout: a baseline's worktree links its dependency folders. */
  checkoutRoot: string;
  /** Told each suite's output (`suiteOutput`) and each baseline (`log`). */
  reporter: RunReporter;
  log: CodePhase["log"];
  /** Makes an envelope the run's default `previous`. */
  setLastEnvelope(envelope: object): void;
  /** The phase ran to its end but what it found is a failure (a failing suite). */
  markFailed(why: string): void;
  /** Where the phase's envelope files are written, off the main thread. */
  files: RecordFiles;
}

/**
 * Writes each envelope a code phase produces through the same door as an agent's: an `envelopes` row
 * (attempt numbered within the phase, valid, accepted when its status is success: code runs no
 * gates on itself) and a file `code/pNN-<phase>[-<attempt>].envelope.json` in the session.
 */
function envelopeRecorder(deps: CodePhaseDeps): (type: OutputType, envelope: object) => void {
  const { row, trace } = deps;
  const dir = path.join(deps.sessionRoot, "code");
  let attempt = 0;
  return (type, envelope) => {
    attempt += 1;
    const status = (envelope as { status?: unknown }).status;
    const json = JSON.stringify(envelope);
    trace.envelope({
      phase_id: row.id,
      agent: row.owner,
      attempt,
      reason: "initial",
      output_type: type.name,
      valid: 1,
      status: typeof status === "string" ? status : null,
      envelope_json: json,
      raw_text: json,
      errors: "[]",
      accepted: status === "success" ? 1 : 0,
    });
    mkdirSync(dir, { recursive: true });
    const stem = `p${String(row.number).padStart(2, "0")}-${row.name}${attempt === 1 ? "" : `-${attempt}`}`;
    const file = path.join(dir, `${stem}.envelope.json`);
    deps.files.write(file, `${JSON.stringify(redactJsonValue(envelope), null, 2)}\n`);
  };
}

/**
 * The handle a code phase's body receives: quality suites, hand-offs through the envelope door, the
 * run's diff as a `ChangesOutput`, and commits of exactly the run's own changes. Every result is traced.
 */
export function codePhaseHandle(deps: CodePhaseDeps): CodePhase {
  const live = liveCodePhase(deps);
  const { durable } = deps;
  // Replayed, each step returns what the journal holds; the run's `previous` moves all the same.
  const handedOff = <T extends object>(envelope: T): T => {
    deps.setLastEnvelope(envelope);
    return envelope;
  };
  return {
    name: live.name,
    number: live.number,
    log: live.log,
    runSuite: async (suite, options) =>
      handedOff(
        await durable.step(
          "suite",
          {
            suite,
            command: deps.config.quality[suite]?.command ?? null,
            // Only when off, so the journals of runs from before the option still match.
            ...(options?.baseline === false ? { baseline: false } : {}),
          },
          () => live.runSuite(suite, options),
        ),
      ),
    // A hand-off journaled synchronously would make handOff async: it is checked and recorded live, and
    // replayed as a pure function of its arguments (the journal still matches it by its place).
    handOff: (outputType, envelope) =>
      durable.replays === null
        ? live.handOff(outputType, envelope)
        : handedOff(outputType.schema.parse(envelope) as typeof envelope),
    suiteBaseline: async (suite) => {
      const commit = await baseCommit(deps.config.repoRoot, deps.trace.session.base_ref);
      const command = deps.config.quality[suite]?.command ?? null;
      return durable.step("baseline", { suite, command, commit }, () => baselineAt(deps, suite, commit));
    },
    captureChanges: async () => handedOff(await durable.step("changes", {}, () => live.captureChanges())),
    commit: (message) => durable.step("commit", { message: message.trim() }, () => live.commit(message)),
  };
}

/** The handle's operations as they run live: every result traced. */
function liveCodePhase(deps: CodePhaseDeps): CodePhase {
  const { row, trace } = deps;
  const name = row.name;
  const record = envelopeRecorder(deps);
  const handOff: CodePhase["handOff"] = (outputType, envelope) => {
    const checked = outputType.schema.parse(envelope) as typeof envelope;
    record(outputType, checked);
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
    runSuite: async (suite, options): Promise<EnvelopeOf<typeof VerifyOutput>> => {
      const logPath = suiteLogPath(deps.sessionRoot, row, suite);
      const result = await runSuitePhase(deps.config, suite, deps.signal, logPath);
      const compare = options?.baseline !== false && deps.config.quality[suite]?.baseline !== false;
      const commit = compare ? await baseCommit(deps.config.repoRoot, deps.trace.session.base_ref) : null;
      const envelope = await verifyEnvelope(
        result,
        commit === null
          ? null
          : {
              run: () => baselineAt(deps, suite, commit),
              cached: () => cachedSuiteBaseline(deps.config, suite, commit),
            },
        (error) =>
          deps.reporter.log(
            `${suite}: no baseline at ${commit?.slice(0, 12)}: ${(error as Error).message}`,
            row,
          ),
      );
      record(VerifyOutput, envelope);
      deps.setLastEnvelope(envelope);
      // The phase did its job, but what it found is a failure: show it as one, let the workflow go on.
      if (!result.passed) deps.markFailed(envelope.summary);
      trace.event({
        type: "log",
        name: envelope.summary,
        phaseId: row.id,
        ok: result.passed,
        payload: { envelope, log_path: result.logPath },
      });
      deps.reporter.suiteOutput?.(row, {
        suite,
        passed: result.passed,
        tail: result.outputTail,
        logPath: result.logPath,
        failedTests: failedTestNames(envelope),
      });
      return envelope;
    },
    handOff,
    suiteBaseline: async (suite) =>
      baselineAt(deps, suite, await baseCommit(deps.config.repoRoot, deps.trace.session.base_ref)),
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
      // Often built from an agent's summary: a secret in it would stay in git's history and be pushed.
      const text = redactSecrets(message.trim());
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

/** The baselines each phase (by its row) has traced and shown, as `<suite>@<commit>`. */
const toldBaselines = new WeakMap<PhaseRow, Set<string>>();

/**
 * Runs (or reads from the cache) `suite` at `commit` and traces what it found as a `log` event; with
 * no commit (outside git, no commits yet) says so and resolves to null.
 */
async function baselineAt(
  deps: CodePhaseDeps,
  suite: string,
  commit: string | null,
): Promise<SuiteBaseline | null> {
  if (commit === null) {
    const why = `${suite}: no base commit to compare with (${deps.config.repoRoot} has no git commit); no baseline`;
    deps.trace.event({ type: "log", name: why, phaseId: deps.row.id, payload: { suite, shown: [why] } });
    deps.reporter.log(why, deps.row);
    return null;
  }
  const baseline = await suiteBaseline({
    config: deps.config,
    suite,
    commit,
    checkoutRoot: deps.checkoutRoot,
    signal: deps.signal,
  });
  // A phase that asks again (the per-test comparison, then the exit-code fallback) tells it once.
  const told = toldBaselines.get(deps.row) ?? new Set<string>();
  toldBaselines.set(deps.row, told);
  if (told.has(`${suite}@${commit}`)) return baseline;
  told.add(`${suite}@${commit}`);
  const failing = baseline.failed_tests?.length;
  const outcome = `${baseline.passed ? "passes" : `fails (exit ${baseline.exit_code ?? "none"})`}${
    failing === undefined || baseline.passed ? "" : `, ${failing} failing test${failing === 1 ? "" : "s"}`
  }`;
  const line = `${suite} at base ${commit.slice(0, 12)}: ${outcome}${baseline.cached ? " (cached)" : ""}`;
  deps.trace.event({
    type: "log",
    name: line,
    phaseId: deps.row.id,
    ok: baseline.passed,
    payload: { baseline, log_path: baseline.log_path, shown: [line] },
  });
  deps.reporter.log(line, deps.row);
  return baseline;
}
