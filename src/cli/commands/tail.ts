import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../errors/usage-error.js";
import { handedOver } from "../../session/handed-over.js";
import type { SessionWaker, TraceStore } from "../../trace/store.js";
import { getSession, listPhases } from "../../trace/store-queries.js";
import { configOption, cwdOption, dbOption } from "../cli-options.js";
import { openReadTrace, type ReadOptions, reapForRead } from "../read-context.js";
import { createTerminalReporter, wantsLiveProgress } from "../report/terminal-reporter.js";
import { traceFollower } from "../report/trace-follower.js";
import { replayTrace } from "../report/trace-replay.js";
import { reportError } from "../report-error.js";

export interface TailOptions extends ReadOptions {
  /** `--from-start`: print the whole run so far (default: its last `--lines`). */
  fromStart?: boolean;
  /** `--lines N`: how many lines of the run so far to print first (default 20). */
  lines?: string;
  /** Poll interval in ms on SQLite (default 250); PostgreSQL wakes the tail at each commit. */
  intervalMs?: number;
}

/** Between reaper passes: a run whose sssf died is closed, so the tail ends. */
const REAP_EVERY_MS = 3000;

function parseLines(value: string | undefined): number {
  const lines = Number(value ?? "20");
  if (!Number.isInteger(lines) || lines < 0)
    throw new UsageError(`--lines: expected a whole number, got "${value}"`, "--lines");
  return lines;
}

/**
 * A stream for the printer: it keeps the last `keep` lines (all with null) until `release` prints
 * them, and writes straight to stdout from then on.
 */
function lineSink(keep: number | null) {
  let held: string[] | null = keep === null ? null : [];
  let partial = "";
  const sink = Object.create(process.stdout, {
    write: {
      value: (chunk: string) => {
        if (held === null) return process.stdout.write(chunk);
        if (keep === null) {
          held.push(String(chunk));
          return true;
        }
        const lines = (partial + String(chunk)).split("\n");
        partial = lines.pop() ?? "";
        held.push(...lines);
        if (held.length > keep * 2 + 100) held = held.slice(-keep);
        return true;
      },
    },
  }) as NodeJS.WriteStream;
  return {
    sink,
    release() {
      if (held === null) return;
      if (keep === null) process.stdout.write(held.join(""));
      else {
        const last = keep === 0 ? [] : held.slice(-keep);
        if (last.length > 0) process.stdout.write(`${last.join("\n")}\n`);
        if (partial !== "") process.stdout.write(partial);
      }
      held = null;
    },
  };
}

/**
 * `sssf tail <adw_id>` (and `sssf events <adw_id> --follow`): the run's lines so far as `sssf run`
 * prints them (the last `--lines`, or all with `--from-start`), then every new one as the trace gets
 * it, until the session ends (a cluster run a worker takes over goes on: its next attempt is followed):
 * exit 0 then, 2 for an unknown session, 130 on Ctrl-C.
 */
export async function tailCommand(adwId: string, options: TailOptions): Promise<number> {
  let db: TraceStore | undefined;
  let waker: SessionWaker | undefined;
  const onSigint = () => {
    void db?.close();
    process.exit(130);
  };
  process.once("SIGINT", onSigint);
  try {
    const keep = options.fromStart ? null : parseLines(options.lines);
    const trace = await openReadTrace(options);
    db = trace.db;
    const first = await getSession(db, adwId);
    if (first === undefined) throw new UsageError(`no session ${adwId} in the trace database`, "<adw_id>");
    const history = lineSink(keep);
    const cwd = path.resolve(options.cwd ?? process.cwd());
    // On a terminal the live view too, drawn once the run so far is printed.
    const reporter = createTerminalReporter(history.sink, cwd, {
      mode: wantsLiveProgress(process.stdout) ? "live" : "plain",
      held: true,
    });
    const printer = replayTrace(reporter);
    printer.sessionStarted(first, path.join(trace.sessionsDir, adwId));
    const follower = traceFollower(db, adwId, printer);
    // Woken by the writers on PostgreSQL (LISTEN/NOTIFY); SQLite is read every interval.
    waker = await db.follow(adwId);
    let reapAt = Date.now() + REAP_EVERY_MS;
    for (;;) {
      // The session first: once it has ended, every event it wrote before is already there.
      const session = (await getSession(db, adwId)) ?? first;
      await follower.drain();
      // A session a cluster worker is taking over is open again in a moment: follow its next attempt.
      if (session.status !== "running" && !(await handedOver(db, session))) {
        printer.finished(session, await listPhases(db, adwId));
        history.release();
        return 0;
      }
      // The run so far is printed; from now on every line goes out as it comes.
      history.release();
      reporter.show();
      await waker.wait(options.intervalMs ?? 250);
      if (Date.now() >= reapAt) {
        await reapForRead(db, trace);
        reapAt = Date.now() + REAP_EVERY_MS;
      }
    }
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  } finally {
    process.removeListener("SIGINT", onSigint);
    await waker?.close();
    await db?.close();
  }
}

/** `sssf tail <adw_id>`: follow a run from another terminal. */
export function registerTail(program: Command): void {
  program
    .command("tail")
    .description(
      "follow a run from another terminal: its lines so far as sssf run prints them, then each new one until it ends",
    )
    .argument("<adw_id>", "session id")
    .option("--from-start", "print the whole run so far (default: its last --lines)")
    .option("--lines <n>", "how many lines of the run so far to print first", "20")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (adwId: string, options) => {
      process.exitCode = await tailCommand(adwId, options);
    });
}
