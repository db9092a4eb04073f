import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf sessions`, and `sssf phases|events|envelopes <adw_id>`: listings of the trace. */
export const traceListsSpec: CommandSpec = {
  names: ["sessions", "phases", "events", "envelopes"],
  register(program) {
    for (const [name, description, needsId] of [
      ["sessions", "list sessions, newest first", false],
      ["phases", "list the phases of a session", true],
      ["events", "list the trace events of a session", true],
      ["envelopes", "list every envelope attempt of a session", true],
    ] as const) {
      const command = program.command(name).description(description);
      if (needsId) command.argument("<adw_id>", "session id");
      command
        .option("--json", "print JSON instead of a table")
        .addOption(dbOption())
        .addOption(configOption())
        .addOption(cwdOption());
      if (name === "sessions")
        command
          .option("--limit <n>", "at most this many sessions", "50")
          .option("--all", "include archived sessions");
      if (name === "events")
        command
          .option("--type <type>", "only events of this type (tool_call, error, …)")
          .option("--follow", "print the run as sssf tail --from-start does and follow it until it ends");
      command.action(async (...args: unknown[]) => {
        const { listCommand } = await import("./list-commands.js");
        const adwId = needsId ? (args[0] as string) : undefined;
        const options = (needsId ? args[1] : args[0]) as Record<string, unknown>;
        if (name === "events" && options.follow === true && adwId !== undefined) {
          const { tailCommand } = await import("./tail-command.js");
          process.exitCode = await tailCommand(adwId, { ...options, fromStart: true });
          return;
        }
        process.exitCode = await listCommand(name, adwId, options);
      });
    }
  },
};
