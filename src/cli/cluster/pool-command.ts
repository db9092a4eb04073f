import type { Command } from "commander";
import { startPool } from "../../cluster/pool-server.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";
import { listenOption, logLine, optionalConfig, parseListen } from "./cluster-config.js";
import { clusterUrl } from "./cluster-urls.js";

export interface PoolCommandOptions {
  listen?: string;
  admin?: string;
  advertise?: string;
  config?: string;
  cwd?: string;
}

/** `sssf pool`: runs until SIGINT or SIGTERM, then exits 0. */
export async function poolCommand(options: PoolCommandOptions): Promise<number> {
  try {
    const config = optionalConfig(options);
    const admin = clusterUrl("admin", options.admin, config);
    const { host, port } = parseListen(options.listen, "127.0.0.1:9081");
    const log = logLine("sssf pool");
    const pool = await startPool({
      host,
      port,
      admin,
      ...(options.advertise === undefined ? {} : { advertise: options.advertise }),
      log,
    });
    log(`listening at ${pool.url}; workers join with: sssf worker --pool ${pool.url} …`);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await pool.close();
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf pool`: the address Restate calls (docs/cluster.md). */
export function registerPool(program: Command): void {
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
      process.exitCode = await poolCommand(options);
    });
}
