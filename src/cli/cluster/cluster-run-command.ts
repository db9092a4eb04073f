/**
 * `sssf run <workflow> <prompt> --engine restate` (docs/cluster.md): checks the run as a local run is
 * checked, submits it to Restate as the workflow `sssfRun/<adw_id>`, then follows it from the shared
 * trace (whichever worker runs it, through failovers) until Restate says it ended. `--detach` prints
 * the adw_id and returns at once.
 */

import { existsSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type ClusterRunRequest, ClusterRunResult } from "../../cluster/cluster-wire.js";
import { attachRun, replyMessage, submitRun } from "../../cluster/restate-http.js";
import { resubmissionRefused } from "../../cluster/run-lease.js";
import { runGit } from "../../code/run-git.js";
import { checkRequestAgainstConfig } from "../../engine/run-checks.js";
import { SssfError } from "../../errors/sssf-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { checkAdwId, mintAdwId } from "../../session/adw-id.js";
import { isUnavailable } from "../../trace/db-unavailable.js";
import type { SessionRow } from "../../trace/events.js";
import { openTraceStore } from "../../trace/open-store.js";
import type { SessionWaker, TraceStore } from "../../trace/store.js";
import { getSession, listPhases } from "../../trace/store-queries.js";
import { traceMayExist } from "../../trace/trace-location.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig } from "../builtin-plugins.js";
import { type RunCommandOptions, readPromptArgument } from "../cli-options.js";
import { createTerminalReporter } from "../report/terminal-reporter.js";
import { traceFollower } from "../report/trace-follower.js";
import { replayTrace } from "../report/trace-replay.js";
import { reportError } from "../report-error.js";
import { clusterUrl } from "./cluster-urls.js";

export interface ClusterRunOptions extends RunCommandOptions {
  ingress?: string;
  detach?: boolean;
}

/** Flags whose meaning is the operator's own checkout: a cluster run has none. */
function refuseLocalFlags(options: ClusterRunOptions): void {
  const local: [keyof ClusterRunOptions, string, string][] = [
    ["inPlace", "--in-place", "a cluster run works in a worktree of a worker's clone"],
    ["merge", "--merge", "a cluster run pushes its branch to the shared remote; merge it from there"],
    [
      "carryDirty",
      "--carry-dirty",
      "a worker starts from a commit on the shared remote; commit and push the changes first",
    ],
    ["fakeScript", "--fake-script", "the fake model runs where the agents run: start it for the workers"],
  ];
  for (const [key, flag, why] of local)
    if (options[key] !== undefined && options[key] !== false)
      throw new UsageError(`${flag}: not with --engine restate (${why})`, flag);
}

/** The commit the run starts from: `--base`, else HEAD, as the workers will fetch it. */
async function baseCommit(cwd: string, base: string | undefined): Promise<string> {
  const ref = base ?? "HEAD";
  try {
    return (await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])).trim();
  } catch {
    throw new UsageError(
      base === undefined
        ? `--engine restate: ${cwd} has no commit to start from (a cluster run starts from a commit on the shared remote)`
        : `--base: "${base}" names no commit in ${cwd}`,
      base === undefined ? "--engine" : "--base",
    );
  }
}

/** Refuses an `--adw-id` the shared trace already has a session of, before anything is submitted. */
async function refuseKnownSession(dbPath: string, adwId: string): Promise<void> {
  if (!traceMayExist(dbPath, existsSync)) return;
  let db: TraceStore;
  try {
    db = await openTraceStore(dbPath, { readonly: true });
  } catch (error) {
    // A PostgreSQL database no process has made a trace in yet holds no session at all.
    if (/holds no sssf trace yet/.test((error as Error).message)) return;
    throw error;
  }
  try {
    const session = await getSession(db, adwId);
    if (session !== undefined)
      throw resubmissionRefused(
        adwId,
        `the trace already has run ${adwId} (${terminalSafe(session.workflow)}, ${session.status})`,
      );
  } finally {
    await db.close();
  }
}

const UNREACHABLE = Symbol("trace out of reach");

/** How long `sssf run --engine restate` waits for the run's first row before it says which trace to read. */
const NO_TRACE_HINT_MS = 10_000;

/** The session as the trace has it now, or UNREACHABLE while a PostgreSQL trace is out of reach. */
async function readSession(
  db: TraceStore,
  adwId: string,
): Promise<SessionRow | undefined | typeof UNREACHABLE> {
  try {
    return await getSession(db, adwId);
  } catch (error) {
    if (isUnavailable(error)) return UNREACHABLE;
    throw error;
  }
}

/** Prints the run's trace as it grows, from the first line, until `ended` resolves; then its end. */
async function follow(db: TraceStore, adwId: string, cwd: string, ended: Promise<unknown>): Promise<void> {
  const printer = replayTrace(createTerminalReporter(process.stdout, cwd));
  let done = false;
  const end = () => {
    done = true;
  };
  ended.then(end, end);
  const follower = traceFollower(db, adwId, printer);
  // Woken by the writers on PostgreSQL (LISTEN/NOTIFY), and by Restate's answer.
  const waker = await db.follow(adwId);
  try {
    await followUntilEnd(db, adwId, printer, follower, waker, ended, () => done);
  } finally {
    await waker.close();
  }
}

async function followUntilEnd(
  db: TraceStore,
  adwId: string,
  printer: ReturnType<typeof replayTrace>,
  follower: ReturnType<typeof traceFollower>,
  waker: SessionWaker,
  ended: Promise<unknown>,
  isDone: () => boolean,
): Promise<void> {
  let started = false;
  // A trace the workers do not write (no SSSF_DB or trace.url here) shows nothing: say what to set.
  let hintAt: number | null = Date.now() + NO_TRACE_HINT_MS;
  const hint = () => {
    if (started || hintAt === null) return;
    hintAt = null;
    process.stderr.write(
      `sssf: run ${adwId} has no line in the trace ${db.name} yet; if the workers write another one, no progress shows here: set SSSF_DB (or trace.url in sssf.config.yaml) to the trace URL they write (docs/cluster.md)\n`,
    );
  };
  // The run goes on while the trace is out of reach; after its end, the last lines get 30 s to come.
  let giveUpAt: number | undefined;
  for (;;) {
    const last = isDone();
    const session = await readSession(db, adwId);
    if (session === UNREACHABLE) {
      if (last) giveUpAt ??= Date.now() + 30_000;
      if (giveUpAt !== undefined && Date.now() > giveUpAt) return;
      await sleep(250);
      continue;
    }
    if (session !== undefined && !started) {
      printer.sessionStarted(session, "on its worker (the trace names it)");
      started = true;
    }
    await follower.drain();
    if (last || (hintAt !== null && Date.now() >= hintAt)) hint();
    if (last) {
      // The worktree was the worker's: what is left to review is the branch on the shared remote.
      try {
        if (session !== undefined)
          printer.finished({ ...session, worktree: null }, await listPhases(db, adwId));
      } catch (error) {
        if (!isUnavailable(error)) throw error;
      }
      return;
    }
    await Promise.race([waker.wait(250), ended.catch(() => undefined)]);
  }
}

export async function clusterRunCommand(
  workflowName: string,
  prompt: string,
  options: ClusterRunOptions,
): Promise<number> {
  try {
    refuseLocalFlags(options);
    const adwId = options.adwId === undefined ? mintAdwId() : checkAdwId(options.adwId);
    const cwd = path.resolve(options.cwd ?? process.cwd());
    // Checked here as a local run checks it: a typo fails now, not on a worker.
    const workflow = await findWorkflow(workflowName, { repoRoot: cwd });
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    const ingress = clusterUrl("ingress", options.ingress, config);
    const text = readPromptArgument(prompt, cwd);
    // What a worker would refuse is refused here, with the local wording, before anything is submitted.
    checkRequestAgainstConfig({
      workflow,
      request: text,
      config,
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    });
    const request: ClusterRunRequest = {
      adw_id: adwId,
      workflow: workflow.name,
      request: text,
      base_commit: await baseCommit(cwd, options.base),
      agent: options.agent ?? null,
      yes: options.yes === true,
      submitted_by: `${userInfo().username}@${hostname()}`,
    };
    if (options.adwId !== undefined) await refuseKnownSession(config.dbPath, adwId);
    if (!(await submitRun(ingress, request)))
      throw resubmissionRefused(adwId, "the cluster already has a run with this id");
    if (options.detach === true) {
      process.stdout.write(options.json === true ? `${JSON.stringify({ adw_id: adwId })}\n` : `${adwId}\n`);
      return 0;
    }
    if (options.json !== true) process.stdout.write(`submitted ${adwId} (${workflow.name}) to ${ingress}\n`);
    const reply = attachRun(ingress, adwId);
    const db = await openTraceStore(config.dbPath);
    try {
      if (options.json !== true) await follow(db, adwId, cwd, reply);
      const answer = await reply;
      if (answer.status !== 200)
        throw new SssfError(
          "internal",
          `the cluster run ${adwId} failed: ${terminalSafe(replyMessage(answer), { multiline: true })}`,
        );
      const result = ClusterRunResult.parse(JSON.parse(answer.body));
      const where =
        result.branch === null
          ? ""
          : ` · branch ${result.branch} pushed (review: git fetch origin ${result.branch} && git log -p FETCH_HEAD)`;
      const left =
        result.wip_ref === null
          ? ""
          : `\n   it left uncommitted work: git fetch origin ${result.wip_ref} && git show --stat FETCH_HEAD`;
      if (options.json === true) process.stdout.write(`${JSON.stringify(result)}\n`);
      else
        process.stdout.write(
          `${result.accepted ? "accepted" : "not accepted"} on worker ${terminalSafe(result.worker)}${where}${left}\n`,
        );
      return result.accepted ? 0 : 1;
    } finally {
      await db.close();
    }
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"), { json: options.json === true });
  }
}
