import { Option } from "commander";
import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

const listenOption = (fallback: string) =>
  new Option("--listen <host:port>", `where to listen (default ${fallback}; port 0 picks a free one)`);

/** `sssf pool`, `sssf worker` and `sssf workers`: running on a Restate cluster (docs/cluster.md). */
export const clusterSpec: CommandSpec = {
  names: ["pool", "worker", "workers"],
  register(program) {
    program
      .command("pool")
      .description("the address Restate calls: hands each run to a live worker with a free slot")
      .addOption(listenOption("127.0.0.1:9081"))
      .option(
        "--admin <url>",
        "Restate's admin URL, where the pool registers (default $SSSF_RESTATE_ADMIN, then engine.restate.admin)",
      )
      .option("--advertise <url>", "the URL Restate reaches the pool at (default http://<listen>)")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { poolCommand } = await import("./pool-command.js");
        process.exitCode = await poolCommand(options);
      });
    program
      .command("worker")
      .description(
        "run the cluster's runs on this machine: joins the pool, keeps a clone, pushes each run's branch",
      )
      .requiredOption(
        "--remote <git-url>",
        "the repository's shared git remote (cloned once into --work-dir)",
      )
      .requiredOption(
        "--work-dir <dir>",
        "where the worker keeps its clone, its runs' checkouts and their session files",
      )
      .option("--pool <url>", "the pool's URL (default $SSSF_POOL, then engine.restate.pool)")
      .option(
        "--ingress <url>",
        "Restate's ingress, for engineer answers (default $SSSF_RESTATE_INGRESS, then engine.restate.ingress)",
      )
      .option("--db <file>", "the trace every worker, the CLI and the UI share (default $SSSF_DB)")
      .option("--slots <n>", "how many runs at once (default 2)")
      .option(
        "--run-timeout <seconds>",
        "Restate's inactivity and abort timeouts: longer than the longest run (default 86400)",
      )
      .addOption(listenOption("127.0.0.1:0"))
      .option("--advertise <url>", "the URL the pool reaches this worker at (default http://<listen>)")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { workerCommand } = await import("./worker-command.js");
        process.exitCode = await workerCommand(options);
      });
    program
      .command("workers")
      .description("list the cluster's workers and the runs they execute")
      .option("--pool <url>", "the pool's URL (default $SSSF_POOL, then engine.restate.pool)")
      .option("--json", "print the list as JSON")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { workersCommand } = await import("./workers-command.js");
        process.exitCode = await workersCommand(options);
      });
  },
};
