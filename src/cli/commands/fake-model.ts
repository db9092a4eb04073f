import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../errors/usage-error.js";
import { fakeModelEnv } from "../../testing/fake-model/fake-model-env.js";
import { createFakeModelServer } from "../../testing/fake-model/fake-model-server.js";
import { loadFakeScript } from "../../testing/fake-model/load-fake-script.js";
import { FAKE_PI_MODEL, writePiAgentDir } from "../../testing/fake-model/pi-agent-dir.js";
import type { FakeModelServer } from "../../testing/fake-model/types.js";
import { reportError } from "../report-error.js";

/** Flags of `sssf fake-model`, as commander hands them over (strings). */
export interface FakeModelCommandOptions {
  script?: string;
  port?: string;
  log?: string;
  /** `--pi-dir DIR`: pi's agent dir to write and keep (default: a temp dir removed on exit). */
  piDir?: string;
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

/** `value` as one shell word: as is when it is plain, else single-quoted. Never throws. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Writes pi's agent dir for `url` into `--pi-dir` (kept) or a new temp dir (removed by the returned
 * cleanup). Throws UsageError naming `--pi-dir` when it cannot be written.
 */
function writePiDir(url: string, piDir: string | undefined): { dir: string; cleanup: () => void } {
  const dir = path.resolve(piDir ?? mkdtempSync(path.join(tmpdir(), "sssf-fake-pi-")));
  try {
    writePiAgentDir(dir, url);
  } catch (error) {
    throw new UsageError(
      `--pi-dir: cannot write pi's agent dir ${dir}: ${(error as Error).message}`,
      "--pi-dir",
    );
  }
  return {
    dir,
    cleanup: () => (piDir === undefined ? rmSync(dir, { recursive: true, force: true }) : undefined),
  };
}

/**
 * `sssf fake-model --script FILE [--port N] [--log FILE] [--pi-dir DIR]`: validates the script (exit
 * 2 naming the file and field), serves it on 127.0.0.1, writes pi's agent dir for it, prints the URL
 * and the environment to export (pi's `PI_CODING_AGENT_DIR` included), and runs until SIGINT/SIGTERM
 * or `POST /__shutdown` (exit 0), removing a temp agent dir on the way out.
 */
export async function fakeModelCommand(options: FakeModelCommandOptions): Promise<number> {
  try {
    const server = await start(parsePort(options.port), options);
    // Handlers go in before the URL is printed: a caller may signal as soon as it reads the line.
    const stopped = untilStopped(server);
    let pi: { dir: string; cleanup: () => void };
    try {
      pi = writePiDir(server.url, options.piDir);
    } catch (error) {
      await server.close();
      throw error;
    }
    const env: Record<string, string> = { ...fakeModelEnv(server.url), PI_CODING_AGENT_DIR: pi.dir };
    const exports = (keys: string[]) =>
      `export ${keys.map((key) => `${key}=${shellWord(env[key] ?? "")}`).join(" ")}`;
    process.stdout.write(
      [
        `fake model server listening on ${server.url}`,
        exports(["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"]),
        exports(["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"]),
        exports(["OPENAI_BASE_URL", "OPENAI_API_KEY"]),
        exports(["PI_CODING_AGENT_DIR"]),
        `# pi: ${FAKE_PI_MODEL} is the default model of that agent dir (or pass --model ${FAKE_PI_MODEL})`,
        "",
      ].join("\n"),
    );
    await stopped;
    pi.cleanup();
    process.stderr.write(
      `fake model server stopped: ${server.requests().length} request(s), ${server.egress().length} egress attempt(s) refused\n`,
    );
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf fake-model`. */
export function registerFakeModel(program: Command): void {
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
      process.exitCode = await fakeModelCommand(options);
    });
}
