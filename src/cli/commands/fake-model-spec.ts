import type { CommandSpec } from "../command-spec.js";

/** `sssf fake-model`. */
export const fakeModelSpec: CommandSpec = {
  names: ["fake-model"],
  register(program) {
    program
      .command("fake-model")
      .description("serve a scripted fake model API (and an egress trap) on 127.0.0.1 for testing agent CLIs")
      .option("--script <file>", "JSON script of steps to play (default: every request gets the echo reply)")
      .option("--port <n>", "port to listen on (default 0: a free port)")
      .option("--log <file>", "append every request and egress attempt to this JSONL file")
      .option(
        "--pi-dir <dir>",
        "write pi's agent dir (models.json, settings.json) here and keep it (default: a temp dir removed on exit)",
      )
      .action(async (options) => {
        const { fakeModelCommand } = await import("./fake-model-command.js");
        process.exitCode = await fakeModelCommand(options);
      });
  },
};
