/**
 * `sssf approve|reject` for a run on the cluster (docs/cluster.md): the question is read from the
 * shared trace (a running engineer phase's `waiting for approval` event, which names Restate's
 * ingress), and the answer resolves the phase's durable promise there, from any machine.
 */

import type { ClusterAnswer } from "../../cluster/cluster-wire.js";
import { type AnswerOutcome, resolveAnswer } from "../../cluster/restate-http.js";
import { openTraceStore } from "../../trace/open-store.js";
import type { TraceStore } from "../../trace/store.js";

/** An engineer phase of a cluster run that waits, as the trace shows it. */
export interface ClusterQuestion {
  /** The question's durable promise, as the journal keys its step. */
  key: string;
  phase: string;
  phase_number: number;
  question: string;
  ingress: string;
}

/**
 * The questions of `adwId` waiting on the cluster right now, oldest first (none for a local run). While
 * a run fails over its asking phase is closed and not yet asked again: the last question it asked is
 * the one waiting then (its promise is the same on every attempt), so it is answered, or said answered.
 */
export async function clusterQuestions(dbPath: string, adwId: string): Promise<ClusterQuestion[]> {
  let db: TraceStore;
  try {
    db = await openTraceStore(dbPath, { readonly: true });
  } catch {
    return [];
  }
  try {
    const rows = await db.all<{
      phase_id: string;
      phase: string;
      phase_number: number;
      status: string;
      payload: string | null;
      session_status: string;
    }>(
      `SELECT e.phase_id AS phase_id, p.name AS phase, p.number AS phase_number, p.status AS status,
           e.payload AS payload, s.status AS session_status
         FROM events e JOIN phases p ON p.id = e.phase_id JOIN sessions s ON s.adw_id = e.adw_id
         WHERE e.adw_id = ? AND e.type = 'log' AND e.name LIKE 'waiting for approval:%'
         ORDER BY e.started_at`,
      [adwId],
    );
    const running = rows.filter((row) => row.status === "running");
    const last = rows.at(-1);
    const failingOver =
      running.length === 0 &&
      last !== undefined &&
      (last.session_status === "running" || last.session_status === "interrupted") &&
      last.status === "interrupted";
    const questions: ClusterQuestion[] = [];
    for (const row of failingOver && last !== undefined ? [last] : running) {
      const payload = JSON.parse(row.payload ?? "{}") as {
        question?: unknown;
        restate_ingress?: unknown;
        answer_step?: unknown;
      };
      if (typeof payload.restate_ingress !== "string" || typeof payload.answer_step !== "string") continue;
      questions.push({
        key: payload.answer_step,
        phase: row.phase,
        phase_number: row.phase_number,
        question: typeof payload.question === "string" ? payload.question : "",
        ingress: process.env.SSSF_RESTATE_INGRESS || payload.restate_ingress,
      });
    }
    return questions;
  } finally {
    await db.close();
  }
}

/** Resolves the question's durable promise: how it went, and the answer given. */
export async function answerOnCluster(
  adwId: string,
  question: ClusterQuestion,
  decision: { approved: boolean; reason: string; by: string },
): Promise<{ outcome: AnswerOutcome; answer: ClusterAnswer }> {
  const answer: ClusterAnswer = { key: question.key, ...decision, at: new Date().toISOString() };
  return { outcome: await resolveAnswer(question.ingress, adwId, answer), answer };
}
