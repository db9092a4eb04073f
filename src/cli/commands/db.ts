import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { OtlpConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import type { Runtime } from "../../runtimes/runtime.js";
import { liveSessions, lockedSessions } from "../../session/live-runs.js";
import { type RecordedSendsOf, SessionRecovery } from "../../session/recover-session.js";
import { openTraceStore } from "../../trace/open-store.js";
import { loadSessions, rebuildDatabase } from "../../trace/rebuild.js";
import { displayTraceLocation, isPostgresUrl, traceMayExist } from "../../trace/trace-location.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption, dbOption } from "../cli-options.js";
import { type ReadOptions, tracePaths } from "../read-context.js";
import { reportError } from "../report-error.js";

/**
 * The live runs a rebuild would pull the database from under: sessions whose lock a live process holds
 * (read from the session folders, so a broken database does not hide them) and `running` rows whose
 * sssf is alive. Sorted by adw_id.
 */
async function liveRuns(
  dbPath: string,
  sessionsDir: string,
): Promise<{ adwId: string; pid: number | null }[]> {
  const live = new Map<string, number | null>();
  for (const { adwId, pid } of lockedSessions(sessionsDir)) live.set(adwId, pid);
  if (traceMayExist(dbPath, existsSync)) {
    try {
      // As it is: a rebuild replaces it, so an older or half-made one is not migrated first.
      const db = await openTraceStore(dbPath, { readonly: true, asIs: true });
      try {
        for (const session of await liveSessions(db, sessionsDir))
          if (!live.has(session.adw_id)) live.set(session.adw_id, session.pid);
      } finally {
        await db.close();
      }
    } catch {
      // An unreadable database is what a rebuild is for; the lock files said who is live.
    }
  }
  return [...live].map(([adwId, pid]) => ({ adwId, pid })).sort((a, b) => a.adwId.localeCompare(b.adwId));
}

/**
 * A session's other record files read back (src/session/recover-session.ts), each agent's
 * raw_output.jsonl by its runtime: every built-in runtime is loaded for that.
 */
async function sessionRecovery(): Promise<(adwId: string, dir: string) => SessionRecovery> {
  const { runtimes } = await import("../builtin-plugins.js");
  const loaded = new Map<string, Runtime>();
  for (const id of runtimes.ids()) {
    const runtime = await runtimes.resolve(id);
    if (runtime !== undefined) loaded.set(id, runtime);
  }
  const sendsOf: RecordedSendsOf = (codingAgent) => {
    const runtime = loaded.get(codingAgent);
    return runtime?.recordedSends?.bind(runtime);
  };
  return (adwId, dir) => new SessionRecovery(adwId, dir, sendsOf);
}

/**
 * `sssf db rebuild`: the database is a mirror of the session files; recreate it from them. Refused
 * (exit 2) while any run is live: it writes to the database being replaced.
 */
export async function dbRebuildCommand(options: ReadOptions): Promise<number> {
  try {
    const { dbPath, sessionsDir } = await tracePaths(options);
    const live = await liveRuns(dbPath, sessionsDir);
    if (live.length > 0) {
      const names = live.map((run) => (run.pid === null ? run.adwId : `${run.adwId} (pid ${run.pid})`));
      throw new UsageError(
        `refusing to rebuild ${displayTraceLocation(dbPath)} while ${live.length === 1 ? "a run is" : "runs are"} live: ${names.join(", ")}; wait for ${live.length === 1 ? "it" : "them"} to finish, or stop ${live.length === 1 ? "it" : "them"} with sssf kill <adw_id> (sssf ps lists live runs)`,
      );
    }
    const result = await rebuildDatabase({ dbPath, sessionsDir, recover: await sessionRecovery() });
    process.stdout.write(
      terminalSafe(
        (isPostgresUrl(dbPath)
          ? `loaded ${result.sessions} session(s), ${result.records} record(s) from ${sessionsDir} into ${displayTraceLocation(dbPath)} (a shared PostgreSQL trace is added to, never replaced)`
          : `rebuilt ${dbPath} from ${result.sessions} session(s), ${result.records} record(s)`) +
          (result.skippedLines ? `, ${result.skippedLines} unreadable line(s) skipped` : "") +
          result.reports.map((report) => `\n${report}`).join("") +
          (result.backupPath ? `\nprevious database kept at ${result.backupPath}` : "") +
          "\n",
        { multiline: true },
      ),
    );
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/**
 * `sssf db load <sessions-dir>`: upserts every session file of the folder into the trace (SSSF_DB,
 * `--db` or the config's), keeping what is there; loading the same folder again changes nothing.
 */
export async function dbLoadCommand(sessionsDir: string, options: ReadOptions): Promise<number> {
  try {
    const { dbPath } = await tracePaths(options);
    const from = path.resolve(options.cwd ?? process.cwd(), sessionsDir);
    const live = lockedSessions(from);
    if (live.length > 0)
      throw new UsageError(
        `refusing to load ${from} while ${live.map((run) => run.adwId).join(", ")} still run from it (their files are still being written); wait for them to finish`,
        "<sessions-dir>",
      );
    const result = await loadSessions({ dbPath, sessionsDir: from, recover: await sessionRecovery() });
    const skipped = result.skippedLines ? `, ${result.skippedLines} unreadable line(s) skipped` : "";
    const line = `loaded ${result.sessions} session(s), ${result.records} record(s) from ${from} into ${displayTraceLocation(dbPath)}${skipped}`;
    process.stdout.write(`${terminalSafe(line)}\n`);
    for (const report of result.reports) process.stdout.write(`${terminalSafe(report)}\n`);
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `observability.otlp` of the config (`--config`, or the repository's when there is one), else null. */
async function configuredOtlp(options: ReadOptions): Promise<OtlpConfig | null> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (!options.config && !existsSync(path.join(cwd, "adws/adw_sssf_config/sssf.config.yaml"))) return null;
  const { loadConfig } = await import("../builtin-plugins.js");
  return loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) }).otlp ?? null;
}

/**
 * `sssf db export --otlp <adw_id>…`: stored runs (SQLite or PostgreSQL) sent to the OTLP endpoint as
 * the spans their live export sends (docs/observability.md). Exit 1 when an export failed.
 */
export async function dbExportCommand(
  adwIds: string[],
  options: ReadOptions & { otlp?: boolean },
): Promise<number> {
  try {
    if (options.otlp !== true)
      throw new UsageError(
        "sssf db export: name the format: --otlp (OpenTelemetry over OTLP/HTTP)",
        "--otlp",
      );
    const { otlpTarget, openExport, warnOnStderr } = await import("../../otel/open-export.js");
    const target = otlpTarget(await configuredOtlp(options));
    if (target === null)
      throw new UsageError(
        "sssf db export --otlp: no endpoint; set OTEL_EXPORTER_OTLP_ENDPOINT (http://localhost:4318) or observability.otlp.endpoint in the config",
        "--otlp",
      );
    const { dbPath } = await tracePaths(options);
    const { storedRunRecords } = await import("../../otel/stored-run.js");
    const db = await openTraceStore(dbPath, { readonly: true });
    const runs: { adwId: string; records: Awaited<ReturnType<typeof storedRunRecords>> }[] = [];
    try {
      for (const adwId of adwIds) runs.push({ adwId, records: await storedRunRecords(db, adwId) });
    } finally {
      await db.close();
    }
    const missing = runs.filter((run) => run.records === null).map((run) => run.adwId);
    if (missing.length > 0)
      throw new UsageError(
        `sssf db export: no run ${missing.join(", ")} in ${displayTraceLocation(dbPath)} (sssf ls lists the runs)`,
        "<adw_id>",
      );
    const spans = await openExport(target, warnOnStderr);
    if (spans === undefined) return 1;
    // One run at a time out of the queue: a long export never fills it.
    for (const run of runs) {
      spans.consume(run.records ?? []);
      await spans.flush();
    }
    const result = await spans.shutdown();
    const line = `${result.failed ? "could not export" : "exported"} ${result.spans} span(s) of ${runs.length} run(s) (${adwIds.join(", ")}) to ${target.url}`;
    process.stdout.write(`${terminalSafe(line)}\n`);
    return result.failed ? 1 : 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf db rebuild`, `sssf db load` and `sssf db export`. */
export function registerDb(program: Command): void {
  const db = program.command("db").description("trace database maintenance");
  db.command("rebuild")
    .description("recreate the trace database from the session files (the old one is kept as a backup)")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await dbRebuildCommand(options);
    });
  db.command("load")
    .description(
      "add the session files of a folder (a cluster worker's <work-dir>/sessions) to the trace database as it is",
    )
    .argument("<sessions-dir>", "a folder of <adw_id>/events.jsonl session folders")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (sessionsDir: string, options) => {
      process.exitCode = await dbLoadCommand(sessionsDir, options);
    });
  db.command("export")
    .description(
      "send stored runs to an observability stack: --otlp, OpenTelemetry spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT or observability.otlp (docs/observability.md)",
    )
    .argument("<adw_id...>", "the runs to export")
    .option("--otlp", "as OpenTelemetry spans over OTLP/HTTP (JSON)")
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (adwIds: string[], options) => {
      process.exitCode = await dbExportCommand(adwIds, options);
    });
}
