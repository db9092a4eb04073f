import type { Command } from "commander";
import { UsageError } from "../../errors/usage-error.js";
import { reapRun } from "../../session/reaper.js";
import { runLiveness } from "../../session/run-liveness.js";
import { sessionDirs } from "../../session/session-dirs.js";
import type { SessionRow } from "../../trace/events.js";
import { openTraceStore } from "../../trace/open-store.js";
import { getSession } from "../../trace/store-queries.js";
import { processAlive } from "../../util/process-group.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption, dbOption } from "../cli-options.js";
import { openReadTrace, type ReadOptions, type ReadTrace } from "../read-context.js";
import { reportError } from "../report-error.js";

interface KillOptions extends ReadOptions {
  timeout?: string;
}

const say = (text: string) => process.stdout.write(terminalSafe(`${text}\n`, { multiline: true }));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function parseTimeout(value: string | undefined): number {
  const seconds = Number(value ?? "60");
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout: expected a positive number of seconds, got "${value}"`, "--timeout");
  return seconds * 1000;
}

const ended = (session: SessionRow) =>
  `${session.adw_id}: ${session.status}${session.reason ? ` (${session.reason})` : ""}`;

/** Closes a run whose sssf is gone: its leftover processes ended, its rows closed as interrupted. */
async function closeDead(trace: ReadTrace, adwId: string): Promise<number> {
  const db = await openTraceStore(trace.dbPath);
  try {
    const reaped = await reapRun(db, { ...trace, by: "sssf kill" }, adwId);
    const session = await getSession(db, adwId);
    if (reaped === null) {
      // Another process closed it (or took its lock) meanwhile.
      if (session) say(ended(session));
      return session?.status === "running" ? 1 : 0;
    }
    const owner = reaped.pid === null ? "its sssf" : `its sssf (pid ${reaped.pid})`;
    say(
      `${adwId}: ${owner} was gone; ${reaped.processesEnded} leftover process(es) ended; closed as interrupted`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

/** SIGTERM to the run's sssf, then waits until its session is no longer `running`. */
async function stopLive(trace: ReadTrace, adwId: string, pid: number, timeoutMs: number): Promise<number> {
  if (pid === process.pid) throw new UsageError(`session ${adwId} is run by this very process`, "<adw_id>");
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // Gone between the look and the signal: closed below as a dead run.
  }
  say(`sent SIGTERM to sssf (pid ${pid}) running ${adwId}; waiting for it to stop its agents and finalize`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const session = await getSession(trace.db, adwId);
    if (session !== undefined && session.status !== "running") {
      say(ended(session));
      return 0;
    }
    if (!processAlive(pid)) return closeDead(trace, adwId);
    if (Date.now() > deadline) {
      process.stderr.write(
        `sssf: ${adwId} is still finalizing after ${Math.round(timeoutMs / 1000)}s (pid ${pid}); run sssf kill ${adwId} again to kill its agents at once\n`,
      );
      return 1;
    }
    await sleep(100);
  }
}

/**
 * `sssf kill <adw_id>`: stops a live run cleanly (SIGTERM to its sssf: the agents are stopped and the
 * session finalized, as on Ctrl-C), or, when its sssf is gone, ends the processes it left and closes
 * the session as `interrupted`. An unknown or finished session is a usage error (exit 2).
 */
export async function killCommand(adwId: string, options: KillOptions): Promise<number> {
  try {
    const timeoutMs = parseTimeout(options.timeout);
    const trace = await openReadTrace(options, { reap: false });
    try {
      const session = await getSession(trace.db, adwId);
      if (session === undefined)
        throw new UsageError(`no session ${adwId} in the trace database`, "<adw_id>");
      if (session.status !== "running") {
        const when = session.ended_at ? ` at ${session.ended_at.replace("T", " ").slice(0, 19)}` : "";
        throw new UsageError(
          `session ${adwId} is not running (it ended ${session.status}${when}); nothing to kill`,
          "<adw_id>",
        );
      }
      const liveness = runLiveness(session, sessionDirs(trace.sessionsDir, adwId).lockFile);
      if (liveness.state === "elsewhere")
        throw new UsageError(
          `session ${adwId} runs on host ${liveness.host} (pid ${liveness.pid}), not on this one: run sssf kill there`,
          "<adw_id>",
        );
      if (liveness.state === "dead" || liveness.pid === null) return await closeDead(trace, adwId);
      return await stopLive(trace, adwId, liveness.pid, timeoutMs);
    } finally {
      await trace.db.close();
    }
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf kill <adw_id>`. */
export function registerKill(program: Command): void {
  program
    .command("kill")
    .description(
      "stop a live run from another terminal: SIGTERM to its sssf, which stops its agents and finalizes; a run whose sssf is gone is closed as interrupted",
    )
    .argument("<adw_id>", "session id")
    .option("--timeout <seconds>", "how long to wait for the run to finalize", "60")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (adwId: string, options) => {
      process.exitCode = await killCommand(adwId, options);
    });
}
