import type { SessionRow } from "../../../trace/events.js";
import type { TraceSql } from "../../../trace/store.js";
import { redactSecrets } from "../../../util/secrets/redact.js";
import { TEXT_LIMIT } from "../api-types.js";
import type { FinalEnvelope } from "./review-types.js";

interface Row {
  id: string;
  phase_id: string;
  phase: string | null;
  output_type: string;
  valid: number;
  accepted: number | null;
  envelope_json: string | null;
  raw_text: string;
}

/**
 * The run's final envelope: of an accepted run, its last accepted one (it crossed a phase boundary);
 * of any other, its last attempt (the one that ended it: a failing suite, an invalid reply); null
 * when the run has none. Texts are redacted and cut to TEXT_LIMIT.
 */
export async function readFinalEnvelope(db: TraceSql, session: SessionRow): Promise<FinalEnvelope | null> {
  const adwId = session.adw_id;
  const rows = await db.all<Row>(
    `SELECT e.id, e.phase_id, p.name AS phase, e.output_type, e.valid, e.accepted, e.envelope_json,
       substr(e.raw_text, 1, ${TEXT_LIMIT}) AS raw_text
     FROM envelopes e LEFT JOIN phases p ON p.id = e.phase_id WHERE e.adw_id = ? ORDER BY e.created_at, e.id`,
    [adwId],
  );
  const row =
    (session.accepted === 1 ? rows.filter((r) => r.accepted === 1).at(-1) : undefined) ?? rows.at(-1);
  if (row === undefined) return null;
  let envelope: unknown = null;
  try {
    envelope = JSON.parse(redactSecrets(row.envelope_json ?? "null"));
  } catch {
    envelope = null;
  }
  return {
    envelope_id: row.id,
    phase_id: row.phase_id,
    phase: row.phase ?? "",
    output_type: row.output_type,
    standing: row.accepted === 1 ? "accepted" : row.valid === 1 ? "valid" : "invalid",
    envelope,
    raw_text: redactSecrets(row.raw_text),
  };
}
