import type { EnvelopeRow, EventRow } from "../../../../trace/events.js";
import type { RunCommit, Versioned } from "../../../server/api-types.js";
import { recordedFiles } from "../../../server/review/commit-files.js";
import { fetchSuiteLog } from "../api.js";
import { Lazy } from "../diff-block.js";
import { formatDuration, parseJson } from "../format.js";
import { Fold, TextBlock } from "../text.js";
import { SuiteTests } from "./review/suite-tests.js";
import { CommitFold, PhaseDiffFold } from "./run-changes.js";

interface Verify {
  suite?: unknown;
  command?: unknown;
  exit_code?: unknown;
  passed?: unknown;
  duration_ms?: unknown;
  output_tail?: unknown;
  log_path?: unknown;
}

/**
 * A code phase's suite runs (its VerifyOutput envelopes): passed or failed, exit code, command and
 * duration, the output tail as monospace text, and the full log file when the suite saved one.
 */
export function SuiteOutput({
  adwId,
  phaseId,
  envelopes,
}: {
  adwId: string;
  phaseId: string;
  envelopes: Versioned<EnvelopeRow>[];
}) {
  const suites = envelopes.filter((e) => e.output_type === "VerifyOutput");
  if (suites.length === 0) return null;
  return (
    <>
      <h2>Suite output</h2>
      {suites.map((envelope) => {
        const v = (parseJson(envelope.envelope_json) ?? {}) as Verify;
        const command = Array.isArray(v.command) ? v.command.map(String).join(" ") : "";
        const passed = v.passed === true;
        return (
          <div
            key={envelope.id}
            class={`suite ${passed ? "passed" : "failed"}`}
            data-envelope-id={envelope.id}
          >
            <p>
              <strong>
                {passed ? "✓" : "✕"} {String(v.suite ?? "suite")} {passed ? "passed" : "failed"}
              </strong>{" "}
              · exit <span class="mono">{v.exit_code === null ? "none" : String(v.exit_code ?? "–")}</span>
              {typeof v.duration_ms === "number" ? ` · ${formatDuration(v.duration_ms)}` : ""}
              {command ? (
                <>
                  {" "}
                  · <span class="mono">{command}</span>
                </>
              ) : null}
            </p>
            <SuiteTests envelope={v as Record<string, unknown>} />
            <TextBlock
              text={typeof v.output_tail === "string" && v.output_tail !== "" ? v.output_tail : "(no output)"}
              cut={envelope._cut}
              className="suite-tail"
            />
            {typeof v.log_path === "string" && v.log_path !== "" ? (
              <Fold title={`Full log (${v.log_path})`}>
                <Lazy
                  load={() => fetchSuiteLog(adwId, phaseId, envelope.id)}
                  render={(log) => <TextBlock text={log.text} cut={log.cut} className="suite-log" />}
                />
              </Fold>
            ) : null}
          </div>
        );
      })}
    </>
  );
}

function commitOf(event: EventRow): RunCommit | null {
  if (event.type !== "log" || !event.name.startsWith("committed ")) return null;
  const payload = (parseJson(event.payload) ?? {}) as {
    commit?: unknown;
    message?: unknown;
    files?: unknown;
  };
  if (typeof payload.commit !== "string") return null;
  const message = typeof payload.message === "string" ? payload.message : "";
  return {
    sha: payload.commit,
    subject: message.split("\n")[0] ?? "",
    message,
    files: recordedFiles(payload.files) ?? [],
    phase_id: event.phase_id,
    at: event.started_at,
  };
}

/** A code phase's own changes: the diff it saved and the commits it made, each opened on demand. */
export function PhaseChanges({
  adwId,
  phaseId,
  envelopes,
  events,
}: {
  adwId: string;
  phaseId: string;
  envelopes: Versioned<EnvelopeRow>[];
  events: Versioned<EventRow>[];
}) {
  const saved = envelopes.some((e) => e.output_type === "ChangesOutput" && e.valid);
  const commits = events.map(commitOf).filter((c): c is RunCommit => c !== null);
  if (!saved && commits.length === 0) return null;
  return (
    <>
      <h2>Changes</h2>
      {saved ? <PhaseDiffFold adwId={adwId} phaseId={phaseId} title="Diff saved by this phase" /> : null}
      {commits.map((commit) => (
        <CommitFold key={commit.sha} adwId={adwId} commit={commit} />
      ))}
    </>
  );
}
