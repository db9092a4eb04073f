import { execFile } from "node:child_process";
import { redactSecrets } from "../../util/secrets/redact.js";
import type { RuntimeCheck } from "../runtime.js";

const VERSION = /\d+\.\d+\.\d+[^\s)]*/;

/** How one `--version` spawn ended: the version it printed, or why it gave none. */
type VersionAttempt = { version: string } | { failure: string };

/** The last non-empty line of `stderr`, secrets redacted and cut to 200 characters; null when none. */
function lastStderrLine(stderr: string): string | null {
  const line = stderr
    .split(/\r?\n/)
    .map((text) => text.trim())
    .filter((text) => text !== "")
    .at(-1);
  if (line === undefined) return null;
  const redacted = redactSecrets(line);
  return redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted;
}

/** `exit code 3, no signal; last stderr line: "…"`, or why the program could not start. */
function describeFailure(
  error: (Error & { code?: unknown; signal?: unknown; killed?: boolean }) | null,
  output: { stdout: string; stderr: string },
  timeoutMs: number,
): string {
  if (error !== null && typeof error.code === "string") return `could not start (${error.code})`;
  const stderr = lastStderrLine(output.stderr);
  const tail = stderr === null ? "" : `; last stderr line: ${JSON.stringify(stderr)}`;
  if (error === null) {
    const printed = `${output.stdout}${output.stderr}`.trim();
    return `exit code 0 but printed no version${printed === "" ? " (no output)" : tail}`;
  }
  const code = typeof error.code === "number" ? `exit code ${error.code}` : "no exit code";
  const signal = typeof error.signal === "string" ? `signal ${error.signal}` : "no signal";
  const timedOut = error.killed === true ? ` (killed after the ${timeoutMs / 1000} s timeout)` : "";
  return `${code}, ${signal}${timedOut}${tail}`;
}

/** One `<command> --version` spawn with its own timeout. Never rejects. */
function versionAttempt(
  command: string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number },
): Promise<VersionAttempt> {
  const [program = "", ...rest] = command;
  return new Promise((resolve) => {
    try {
      execFile(
        program,
        [...rest, "--version"],
        { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, killSignal: "SIGKILL" },
        (error, stdout, stderr) => {
          const version = VERSION.exec(String(stdout))?.[0] ?? VERSION.exec(String(stderr))?.[0];
          if (error === null && version !== undefined) return resolve({ version });
          const output = { stdout: String(stdout), stderr: String(stderr) };
          resolve({ failure: describeFailure(error, output, options.timeoutMs) });
        },
      );
    } catch (error) {
      resolve({ failure: `could not start: ${(error as Error).message}` });
    }
  });
}

/**
 * `sssf doctor`'s version check: runs `<command> --version` and reads the first `x.y.z` on stdout or
 * stderr (pi prints it on stderr). A failed spawn is retried once with a fresh timeout (`pi --version`
 * has failed under load); a pass on the retry is a warning naming the first failure, two failures a
 * problem with each one's exit code, signal and last stderr line (redacted). Notes when the version
 * differs from the one sssf was tested with. The only spawn doctor makes; never rejects.
 */
export async function cliVersionCheck(
  command: string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number; tested?: string },
): Promise<RuntimeCheck> {
  const shown = `\`${[...command, "--version"].join(" ")}\``;
  const attempt = { cwd: options.cwd, env: options.env, timeoutMs: options.timeoutMs ?? 30_000 };
  const first = await versionAttempt(command, attempt);
  const second = "failure" in first ? await versionAttempt(command, attempt) : null;
  const passed = second === null ? first : second;
  if ("failure" in passed) {
    const failures = "failure" in first ? [first.failure, passed.failure] : [passed.failure];
    const why =
      failures[0] === failures[1] ? `twice: ${passed.failure}` : `twice: ${failures.join("; then ")}`;
    return { ok: false, item: "version", detail: `${shown} failed ${why}` };
  }
  const note =
    options.tested && passed.version !== options.tested ? ` (sssf was tested with ${options.tested})` : "";
  if (second === null || !("failure" in first))
    return { ok: true, item: "version", detail: `${passed.version}${note}` };
  return {
    ok: true,
    warning: true,
    item: "version",
    detail: `${passed.version}${note}; the first ${shown} failed (${first.failure}), the retry passed`,
  };
}
