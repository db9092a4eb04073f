import { rebuildDatabase } from "../../trace/rebuild.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { type ReadOptions, tracePaths } from "../read-context.js";
import { reportError } from "../report-error.js";

/** `sssf db rebuild`: the database is a mirror of the session files; recreate it from them. */
export async function dbRebuildCommand(options: ReadOptions): Promise<number> {
  try {
    const { dbPath, sessionsDir } = await tracePaths(options);
    const result = rebuildDatabase({ dbPath, sessionsDir });
    process.stdout.write(
      terminalSafe(
        `rebuilt ${dbPath} from ${result.sessions} session(s), ${result.records} record(s)` +
          (result.skippedLines ? `, ${result.skippedLines} unreadable line(s) skipped` : "") +
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
