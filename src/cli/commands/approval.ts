import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { answeredBy, answerRequest, liveRequests } from "../../approval/approval-answer.js";
import { type ApprovalRequest, approvalsDir } from "../../approval/approval-files.js";
import { UsageError } from "../../errors/usage-error.js";
import { checkAdwId } from "../../session/adw-id.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption } from "../cli-options.js";
import type { ClusterQuestion } from "../cluster/cluster-approval.js";
import { tracePaths } from "../read-context.js";
import { reportError } from "../report-error.js";

/** Flags of `sssf approve` and `sssf reject`. */
export interface ApprovalCommandOptions {
  reason?: string;
  /** Which waiting phase (name or number), when several wait at once. */
  phase?: string;
  config?: string;
  cwd?: string;
}

/** What a waiting phase is picked by: its name and number. */
type Waiting = Pick<ApprovalRequest, "phase" | "phase_number">;

function pick<R extends Waiting>(requests: R[], adwId: string, phase: string | undefined): R {
  const label = (r: Waiting) => `${r.phase_number} ${r.phase}`;
  if (phase === undefined) {
    if (requests.length === 1 && requests[0]) return requests[0];
    throw new UsageError(
      `session ${adwId} has ${requests.length} phases waiting for approval (${requests.map(label).join(", ")}): pass --phase <name|number>`,
      "--phase",
    );
  }
  const chosen = requests.find((r) => r.phase === phase || String(r.phase_number) === phase);
  if (!chosen) {
    throw new UsageError(
      `--phase ${phase}: no such phase waits for approval in session ${adwId} (waiting: ${requests.map(label).join(", ")})`,
      "--phase",
    );
  }
  return chosen;
}

/** Answers a cluster run's waiting phase through its durable promise, and prints what was answered. */
async function answerClusterQuestion(
  verb: "approve" | "reject",
  adwId: string,
  asked: ClusterQuestion[],
  options: ApprovalCommandOptions & { reason: string },
): Promise<number> {
  const { answerOnCluster } = await import("../cluster/cluster-approval.js");
  const question = pick(asked, adwId, options.phase);
  const approved = verb === "approve";
  const { outcome, answer } = await answerOnCluster(adwId, question, {
    approved,
    reason: options.reason,
    by: answeredBy(),
  });
  if (outcome === "answered-already")
    throw new UsageError(
      `session ${adwId}: phase ${question.phase_number} ${question.phase} is already answered`,
    );
  printAnswered(adwId, question, answer.by, approved, options.reason);
  if (outcome === "queued")
    process.stdout.write(
      "   no worker is live to record it now: Restate keeps the answer and records it once one joins (sssf workers)\n",
    );
  return 0;
}

/** What was answered: the question and names come from the workflow, shown and never acted on. */
function printAnswered(
  adwId: string,
  request: { phase_number: number; phase: string; question: string },
  by: string,
  approved: boolean,
  reason: string,
): void {
  const because = reason === "" ? "" : ` (${reason})`;
  process.stdout.write(
    terminalSafe(
      redactSecrets(
        `${approved ? "approved" : "rejected"} phase ${request.phase_number} ${request.phase} of session ${adwId} as ${by}${because}\n` +
          `   question: ${request.question}\n`,
      ),
      { multiline: true },
    ),
  );
}

/**
 * `sssf approve|reject <adw_id>`: answers the session's phase that waits for the engineer, writing
 * the answer file the waiting run picks up, and prints what was answered. Returns the exit status:
 * 0 once answered; 2 for an unknown session, nothing waiting, an answer already given, or a
 * rejection without `--reason`.
 */
export async function approvalCommand(
  verb: "approve" | "reject",
  adwId: string,
  options: ApprovalCommandOptions,
): Promise<number> {
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const reason = (options.reason ?? "").trim();
    if (verb === "reject" && reason === "")
      throw new UsageError(
        'sssf reject needs --reason "…": the workflow sees why it was rejected',
        "--reason",
      );
    try {
      checkAdwId(adwId);
    } catch {
      throw new UsageError(`"${adwId}" is not a session id`);
    }
    const { sessionsDir, dbPath } = await tracePaths({
      cwd,
      ...(options.config ? { config: options.config } : {}),
    });
    const sessionRoot = path.join(sessionsDir, adwId);
    const dir = approvalsDir(sessionRoot);
    const { live, gone } = existsSync(sessionRoot) ? liveRequests(dir) : { live: [], gone: [] };
    // A run on the cluster waits on a worker: its question is in the shared trace (docs/cluster.md).
    if (live.length === 0) {
      const { clusterQuestions } = await import("../cluster/cluster-approval.js");
      const asked = await clusterQuestions(dbPath, adwId);
      if (asked.length > 0) return await answerClusterQuestion(verb, adwId, asked, { ...options, reason });
    }
    if (!existsSync(sessionRoot)) {
      // A run of another host (a cluster worker's) is in the trace, not in this host's sessions folder.
      const { readSessionRow } = await import("../../trace/store-queries.js");
      const row = await readSessionRow(dbPath, adwId);
      if (row !== undefined)
        throw new UsageError(
          `session ${adwId} has no phase waiting for approval (the trace shows it ${row.status})`,
        );
      throw new UsageError(`no session ${adwId} in the trace database or in ${sessionsDir}`, "<adw_id>");
    }
    if (live.length === 0) {
      const note = gone.length > 0 ? ` (the run that asked, pid ${gone[0]?.pid}, has exited)` : "";
      throw new UsageError(`session ${adwId} has no phase waiting for approval${note}`);
    }
    const request = pick(live, adwId, options.phase);
    const approved = verb === "approve";
    const answer = answerRequest(dir, request, { approved, reason, by: answeredBy() });
    if (answer === null) {
      throw new UsageError(
        `session ${adwId}: phase ${request.phase_number} ${request.phase} is already answered`,
      );
    }
    printAnswered(adwId, request, answer.by, approved, reason);
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf approve <adw_id>` and `sssf reject <adw_id>`. */
export function registerApproval(program: Command): void {
  for (const [name, description] of [
    ["approve", "approve the phase of a running session that waits for the engineer"],
    ["reject", "reject the phase of a running session that waits for the engineer (--reason required)"],
  ] as const) {
    program
      .command(name)
      .description(description)
      .argument("<adw_id>", "session id")
      .option(
        "--reason <text>",
        name === "reject" ? "why (required; the workflow sees it)" : "why (optional)",
      )
      .option("--phase <name|number>", "which phase, when several of the session wait at once")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (adwId: string, options) => {
        process.exitCode = await approvalCommand(name, adwId, options);
      });
  }
}
