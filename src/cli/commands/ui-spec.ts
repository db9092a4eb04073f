import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf ui`. */
export const uiSpec: CommandSpec = {
  names: ["ui"],
  register(program) {
    program
      .command("ui")
      .description("serve the live trace viewer on 127.0.0.1 (sessions, runs as waterfalls, phase detail)")
      .option("--port <n>", "port to listen on (default 4477 or the next free one; 0 = any free port)")
      .option("--host <host>", "interface to bind (default 127.0.0.1; anything else exposes the trace)")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { uiCommand } = await import("./ui-command.js");
        process.exitCode = await uiCommand(options);
      });
  },
};
