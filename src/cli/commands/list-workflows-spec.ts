import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf list`: the workflows. */
export const listWorkflowsSpec: CommandSpec = {
  names: ["list"],
  register(program) {
    program
      .command("list")
      .description("list every workflow (built-in and adws/adw_<name>.ts) with its phases, agents and suites")
      .option("--json", "print JSON instead of text")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { listWorkflowsCommand } = await import("./list-workflows-command.js");
        process.exitCode = await listWorkflowsCommand(options);
      });
  },
};
