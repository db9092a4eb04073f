import path from "node:path";
import { UsageError } from "../../errors/usage-error.js";
import { fakeModelEnv } from "../../testing/fake-model/fake-model-env.js";
import { createFakeModelServer } from "../../testing/fake-model/fake-model-server.js";
import { loadFakeScript } from "../../testing/fake-model/load-fake-script.js";
import type { FakeModelServer } from "../../testing/fake-model/types.js";
import { reportError } from "../report-error.js";

/** Flags of `sssf fake-model`, as commander hands them over (strings). */
export interface FakeModelCommandOptions {
  script?: string;
  port?: string;
  log?: string;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    throw new UsageError(
      `--port: expected an integer from 0 to 65535 (0 picks a free port), got "${value}"`,
      "--port",
    );
  return port;
}

async function start(port: number, options: FakeModelCommandOptions): Promise<FakeModelServer> {
  const script = options.script ? loadFakeScript(path.resolve(options.script)) : undefined;
  try {
    return await createFakeModelServer({
      ...(script ? { script } : {}),
      port,
      ...(options.log ? { logFile: path.resolve(options.log) } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES")
      throw new UsageError(`--port: cannot listen on 127.0.0.1:${port} (${code})`, "--port");
    throw error;
  }
}

/** Resolves when SIGINT/SIGTERM arrives (then closes the server) or the server closes itself. */
function untilStopped(server: FakeModelServer): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void server.close().then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    void server.closed.then(stop);
  });
}

/**
 * `sssf fake-model --script FILE [--port N] [--log FILE]`: validates the script (exit 2 naming the
 * file and field), serves it on 127.0.0.1, prints the URL and the environment to export, and runs
 * until SIGINT/SIGTERM or `POST /__shutdown` (exit 0).
 */
export async function fakeModelCommand(options: FakeModelCommandOptions): Promise<number> {
  try {
    const server = await start(parsePort(options.port), options);
    // Handlers go in before the URL is printed: a caller may signal as soon as it reads the line.
    const stopped = untilStopped(server);
    const env = fakeModelEnv(server.url);
    const exports = (keys: string[]) => `export ${keys.map((key) => `${key}=${env[key]}`).join(" ")}`;
    process.stdout.write(
      [
        `fake model server listening on ${server.url}`,
        exports(["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"]),
        exports(["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"]),
        exports(["OPENAI_BASE_URL", "OPENAI_API_KEY"]),
        "",
      ].join("\n"),
    );
    await stopped;
    process.stderr.write(
      `fake model server stopped: ${server.requests().length} request(s), ${server.egress().length} egress attempt(s) refused\n`,
    );
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}
