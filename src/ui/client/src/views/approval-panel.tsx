import { useEffect, useState } from "preact/hooks";
import type { PendingApproval } from "../../../server/api-types.js";
import { fetchApprovals, postApproval } from "../api.js";
import { formatTime } from "../format.js";
import { JsonBlock, TextBlock } from "../text.js";

function Question({
  adwId,
  request,
  onAnswered,
}: {
  adwId: string;
  request: PendingApproval;
  onAnswered: () => void;
}) {
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const answer = (approved: boolean) => {
    setBusy(true);
    setProblem(null);
    postApproval(adwId, request.phase_id, approved, reason.trim()).then(
      (answered) => {
        setDone(`${answered.approved ? "Approved" : "Rejected"} by ${answered.by}`);
        onAnswered();
      },
      (error: Error) => {
        setBusy(false);
        setProblem(error.message);
      },
    );
  };
  return (
    <div class="approval" data-phase-id={request.phase_id}>
      <p>
        <strong>
          Phase {request.phase_number} {request.phase} waits for the engineer
        </strong>{" "}
        <span class="muted">since {formatTime(request.asked_at)}</span>
      </p>
      <TextBlock text={request.question} className="approval-question" />
      {Object.keys(request.details).length > 0 ? <JsonBlock value={request.details} /> : null}
      {done ? (
        <p class="approval-done">{done}</p>
      ) : (
        <div class="approval-form">
          <input
            type="text"
            class="approval-reason"
            placeholder="Reason (required to reject)"
            value={reason}
            maxLength={2000}
            onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="button" class="approve" disabled={busy} onClick={() => answer(true)}>
            Approve
          </button>
          <button
            type="button"
            class="reject"
            disabled={busy || reason.trim() === ""}
            title={reason.trim() === "" ? "A rejection needs a reason" : ""}
            onClick={() => answer(false)}
          >
            Reject
          </button>
        </div>
      )}
      {problem ? <p class="error-line">{problem}</p> : null}
    </div>
  );
}

/**
 * The questions a running engineer phase asks (`phase.ask`), with Approve and Reject. The phase's own
 * live stream says when it starts or stops waiting (its `waiting for approval` log event): the
 * pending requests are read again on each of its deltas.
 */
export function ApprovalPanel({ adwId, phaseId }: { adwId: string; phaseId: string }) {
  const [pending, setPending] = useState<PendingApproval[]>([]);
  const [answered, setAnswered] = useState<PendingApproval[]>([]);
  useEffect(() => {
    let gone = false;
    const load = () =>
      fetchApprovals(adwId).then(
        (view) => !gone && setPending(view.pending.filter((p) => p.phase_id === phaseId)),
        () => {},
      );
    const source = new EventSource(
      `api/live?adw=${encodeURIComponent(adwId)}&phase=${encodeURIComponent(phaseId)}`,
    );
    source.addEventListener("hello", () => void load());
    source.addEventListener("delta", (event) => {
      const delta = JSON.parse((event as MessageEvent<string>).data) as { events?: unknown[] };
      if (delta.events?.length) void load();
    });
    return () => {
      gone = true;
      source.close();
    };
  }, [adwId, phaseId]);
  // An answered question stays on screen (with who answered) until the phase moves on.
  const shown = [...pending, ...answered.filter((a) => !pending.some((p) => p.phase_id === a.phase_id))];
  if (shown.length === 0) return null;
  return (
    <div class="approvals">
      {shown.map((request) => (
        <Question
          key={request.phase_id}
          adwId={adwId}
          request={request}
          onAnswered={() => setAnswered((a) => [...a, request])}
        />
      ))}
    </div>
  );
}
