import type { CommandSpec } from "../command-spec.js";

/** `sssf demo`. */
export const demoSpec: CommandSpec = {
  names: ["demo"],
  listsOthers: true,
  register(program) {
    program
      .command("demo")
      .description("run simple-sdlc in a scratch repo through the real pi CLI against the bundled fake model")
      .option("--dir <dir>", "where to create the scratch repo: empty or absent (default: a new temp folder)")
      .action(async (options) => {
        const { demoCommand } = await import("./demo-command.js");
        // The trace hints name `sssf ui` only when this build has it.
        const ui = program.commands.some((command) => command.name() === "ui");
        process.exitCode = await demoCommand({ ...options, ui });
      });
  },
};
