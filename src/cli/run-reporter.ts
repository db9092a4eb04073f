import type { RunReporter } from "../session/reporter.js";
import { createTerminalReporter } from "./terminal-reporter.js";

/**
 * Whether `out` gets the live area: a terminal, with none of `NO_COLOR`, `CI` or `TERM=dumb` set.
 * Anything else (a pipe, a file, CI logs) gets the plain lines alone.
 */
export function wantsLiveProgress(
  out: Pick<NodeJS.WriteStream, "isTTY">,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (out.isTTY !== true) return false;
  if (env.NO_COLOR !== undefined || env.TERM === "dumb") return false;
  return env.CI === undefined || env.CI === "" || env.CI === "0" || env.CI.toLowerCase() === "false";
}

/**
 * The reporter of `sssf run` and `sssf resume`: the live reporter (spinner lines above which the plain
 * lines print) on a terminal, the plain terminal reporter, byte for byte, everywhere else. The live
 * one (and listr2 with it) is loaded only when it is used.
 */
export async function createRunReporter(
  out: NodeJS.WriteStream,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunReporter> {
  if (!wantsLiveProgress(out, env)) return createTerminalReporter(out, cwd);
  const { createLiveReporter } = await import("./live-reporter.js");
  return createLiveReporter(out, cwd);
}
