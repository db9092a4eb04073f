/** The argv that runs `command` inside a send's box, whatever the backend. */

import { bwrapArgs } from "./bwrap-args.js";
import { seatbeltProfile } from "./seatbelt-profile.js";
import type { SendSandbox } from "./send-sandbox.js";

/**
 * `command` (its program already an absolute path) wrapped in the sandbox program. `cwd` is where it
 * starts inside the box; Seatbelt starts where the process is spawned (the host path). `env` is the
 * environment it runs with (paths it names are shown in the box's private `/tmp`).
 */
export function boxedCommand(
  sandbox: SendSandbox,
  command: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): string[] {
  if (sandbox.backend === "bwrap") return [sandbox.program, ...bwrapArgs(sandbox, command, cwd, { env })];
  return [sandbox.program, "-p", seatbeltProfile(sandbox), ...command];
}
