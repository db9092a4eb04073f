import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf db rebuild` and `sssf db load`. */
export const dbSpec: CommandSpec = {
  names: ["db"],
  register(program) {
    const db = program.command("db").description("trace database maintenance");
    db.command("rebuild")
      .description("recreate the trace database from the session files (the old one is kept as a backup)")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { dbRebuildCommand } = await import("./db-command.js");
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
        const { dbLoadCommand } = await import("./db-command.js");
        process.exitCode = await dbLoadCommand(sessionsDir, options);
      });
  },
};
