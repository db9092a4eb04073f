import type { TraceSql } from "../../trace/store.js";
import type { FileText } from "./api-types.js";
import { fileInside, readSessionFile, sessionRoot } from "./session-files.js";

/** Why a suite log cannot be served, or the log. */
export type SuiteLog = { log: FileText } | { missing: string };

/**
 * The full output log of a code phase's suite: the `log_path` of its VerifyOutput envelope, read
 * only when it lies inside the session directory (symlinks followed), secrets redacted, cut to the
 * text limit. Never throws for a missing or foreign file: `missing` says what is wrong.
 */
export async function readSuiteLog(
  db: TraceSql,
  adwId: string,
  phaseId: string,
  envelopeId: string,
  sessionsDir: string,
): Promise<SuiteLog> {
  const row = await db.get<{ envelope_json: string | null }>(
    `SELECT envelope_json FROM envelopes
     WHERE adw_id = ? AND phase_id = ? AND id = ? AND output_type = 'VerifyOutput'`,
    [adwId, phaseId, envelopeId],
  );
  if (row === undefined) return { missing: "no such suite envelope in this phase" };
  let logPath: unknown;
  try {
    logPath = (JSON.parse(row.envelope_json ?? "{}") as { log_path?: unknown }).log_path;
  } catch {
    logPath = undefined;
  }
  if (typeof logPath !== "string" || logPath === "") return { missing: "the suite saved no log_path" };
  const root = sessionRoot(sessionsDir, adwId);
  const real = root === null ? null : fileInside(root, logPath);
  if (root === null || real === null) {
    return { missing: "the log is not a file inside the session directory" };
  }
  return { log: readSessionFile(root, real) };
}
