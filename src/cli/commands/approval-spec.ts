import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf approve <adw_id>` and `sssf reject <adw_id>`. */
export const approvalSpec: CommandSpec = {
  names: ["approve", "reject"],
  register(program) {
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
          const { approvalCommand } = await import("./approval-command.js");
          process.exitCode = await approvalCommand(name, adwId, options);
        });
    }
  },
};
