import { execFile } from "node:child_process";
import type { RuntimeCheck } from "../runtime.js";

const VERSION = /\d+\.\d+\.\d+[^\s)]*/;

/**
 * `sssf doctor`'s version check: runs `<command> --version` (the only spawn doctor makes) and reads
 * the first `x.y.z` on stdout or stderr (pi prints it on stderr). Notes when the version differs from
 * the one sssf was tested with. Never rejects.
 */
export function cliVersionCheck(
  command: string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number; tested?: string },
): Promise<RuntimeCheck> {
  const [program = "", ...rest] = command;
  const shown = `\`${[...command, "--version"].join(" ")}\``;
  return new Promise((resolve) => {
    try {
      execFile(
        program,
        [...rest, "--version"],
        { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 30_000, killSignal: "SIGKILL" },
        (error, stdout, stderr) => {
          const version = VERSION.exec(String(stdout))?.[0] ?? VERSION.exec(String(stderr))?.[0];
          if (error !== null || version === undefined) {
            const why = error?.message ?? `printed no version: ${`${stdout}${stderr}`.trim().slice(0, 300)}`;
            resolve({ ok: false, item: "version", detail: `${shown} failed: ${why}` });
            return;
          }
          const note =
            options.tested && version !== options.tested ? ` (sssf was tested with ${options.tested})` : "";
          resolve({ ok: true, item: "version", detail: `${version}${note}` });
        },
      );
    } catch (error) {
      resolve({ ok: false, item: "version", detail: `${shown} failed: ${(error as Error).message}` });
    }
  });
}
