import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { SssfConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import { displayTraceLocation, traceLocation, traceMayExist } from "../../trace/trace-location.js";
import type { ColorScheme } from "../../ui/server/api-types.js";
import { parseAuthority } from "../../ui/server/guard/served-hosts.js";
import type { MergeTarget } from "../../ui/server/merge-routes.js";
import { isLoopback, startUiServer } from "../../ui/server/start-server.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { ReadOptions } from "../read-context.js";
import { reportError } from "../report-error.js";

/** Flags of `sssf ui`. */
export interface UiOptions extends ReadOptions {
  port?: string;
  host?: string;
  allowHost?: string[];
}

interface UiPaths {
  dbPath: string;
  sessionsDir: string;
  scheme: ColorScheme;
  /** Why the config was not used, when it exists but does not load. */
  notice: string | null;
  /** Where the Merge button lands runs: this checkout, by the config's `merge.strategy`. */
  merge: MergeTarget;
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port: expected a port number from 0 to 65535, got "${value}"`, "--port");
  return port;
}

/** The `--allow-host` names, checked: each a bare host name or IP address, no port, no scheme. */
function parseAllowHosts(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((value) => {
    const authority = parseAuthority(value);
    if (authority === null || authority.port !== null) {
      throw new UsageError(
        `--allow-host: expected a host name such as ui.example.com (no scheme, no port), got "${value}"`,
        "--allow-host",
      );
    }
    return authority.name;
  });
}

/** The trace paths and lane colors: from the config when it loads, else the defaults and the palette. */
async function uiPaths(options: ReadOptions): Promise<UiPaths> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { AGENT_COLOR_PALETTE, DEFAULT_CONFIG_PATH, DEFAULT_DATA_DIR } = await import(
    "../../config/config-schema.js"
  );
  let config: SssfConfig | null = null;
  let notice: string | null = null;
  if (options.config !== undefined || existsSync(path.join(cwd, DEFAULT_CONFIG_PATH))) {
    const { loadConfig } = await import("../builtin-plugins.js");
    try {
      config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    } catch (error) {
      // An explicit --config must load; a broken default one only costs the configured colors.
      if (options.config !== undefined) throw error;
      notice = `config not loaded (${(error as Error).message.split("\n")[0]}); using default paths and colors`;
    }
  }
  const dataDir = path.join(cwd, DEFAULT_DATA_DIR);
  return {
    dbPath: options.db ? traceLocation(cwd, options.db) : (config?.dbPath ?? path.join(dataDir, "sssf.db")),
    sessionsDir: config?.sessionsDir ?? path.join(dataDir, "sessions"),
    scheme: {
      colors: Object.fromEntries((config?.agents ?? []).map((agent) => [agent.name, agent.color])),
      palette: [...AGENT_COLOR_PALETTE],
    },
    notice,
    merge: { checkout: cwd, strategy: config?.merge?.strategy ?? "ff" },
  };
}

/** Resolves on the first SIGINT or SIGTERM; `stop()` removes the listeners. */
function listenForInterrupt(): { interrupted: Promise<NodeJS.Signals>; stop: () => void } {
  let stop = () => {};
  const interrupted = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      stop();
      resolve(signal);
    };
    stop = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  return { interrupted, stop };
}

/**
 * `sssf ui`: serves the live trace viewer until Ctrl-C, then closes streams, sockets and the database.
 * Returns the exit status: 0 after a clean stop, 2 for a missing database, a bad flag or a taken port.
 */
export async function uiCommand(options: UiOptions): Promise<number> {
  try {
    const port = parsePort(options.port);
    const host = options.host ?? "127.0.0.1";
    const allowHosts = parseAllowHosts(options.allowHost);
    const paths = await uiPaths(options);
    if (!traceMayExist(paths.dbPath, existsSync)) {
      throw new UsageError(
        `no trace database at ${paths.dbPath} (run a workflow first, or pass --db PATH / --config PATH)`,
        "--db",
      );
    }
    if (paths.notice !== null) process.stderr.write(`sssf ui: ${terminalSafe(paths.notice)}\n`);
    if (!isLoopback(host)) {
      process.stderr.write(
        `sssf ui: warning: serving on ${terminalSafe(host)}, not only this machine: anyone who can reach it can read ` +
          "every prompt, tool output and envelope in the trace, and archive sessions\n",
      );
    }
    // Listen for Ctrl-C before the URL is printed: a signal in between would kill the process unclean.
    const signals = listenForInterrupt();
    const server = await startUiServer({
      dbPath: paths.dbPath,
      sessionsDir: paths.sessionsDir,
      scheme: paths.scheme,
      merge: paths.merge,
      reap: true,
      host,
      allowHosts,
      ...(port === undefined ? {} : { port }),
    }).catch((error: unknown) => {
      signals.stop();
      throw error;
    });
    process.stdout.write(
      terminalSafe(
        `sssf ui: ${server.url}  (trace ${displayTraceLocation(paths.dbPath)}; Ctrl-C to stop)\n`,
        { multiline: true },
      ),
    );
    await signals.interrupted;
    await server.close();
    process.stdout.write("sssf ui: stopped\n");
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf ui`. */
export function registerUi(program: Command): void {
  program
    .command("ui")
    .description("serve the live trace viewer on 127.0.0.1 (sessions, runs as waterfalls, phase detail)")
    .option("--port <n>", "port to listen on (default 4477 or the next free one; 0 = any free port)")
    .option("--host <host>", "interface to bind (default 127.0.0.1; anything else exposes the trace)")
    .option(
      "--allow-host <name>",
      "also answer requests naming this host (a reverse proxy's), at any port; repeatable",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .addOption(dbOption())
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await uiCommand(options);
    });
}
