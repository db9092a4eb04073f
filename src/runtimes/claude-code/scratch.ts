/**
 * claude's scratch files. claude keeps per-run files (file-watch probes, task output) under
 * `$CLAUDE_CODE_TMPDIR/claude-<uid>/` and a messaging socket at
 * `${XDG_RUNTIME_DIR || CLAUDE_CODE_TMPDIR || tmpdir}/cc-socks/<pid>.sock` (or
 * `/tmp/cc-socks-<uid>/<pid>.sock` when that path is too long). claude removes the socket on SIGTERM
 * but not when SIGKILLed. sssf points the scratch dir into the agent's session folder and removes the
 * socket of a process that is gone.
 */

import { lstatSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The agent's scratch dir for claude, inside its session folder. */
export function claudeTmpDir(sessionDir: string): string {
  return path.join(sessionDir, "claude-code", "tmp");
}

/** Where claude `pid` put its messaging socket, given the environment it ran with. */
export function claudeSocketPaths(pid: number, env: Record<string, string | undefined>): string[] {
  const base = env.XDG_RUNTIME_DIR || env.CLAUDE_CODE_TMPDIR || tmpdir();
  const uid = process.getuid?.() ?? 0;
  return [path.join(base, "cc-socks", `${pid}.sock`), path.join("/tmp", `cc-socks-${uid}`, `${pid}.sock`)];
}

/** Removes the socket a finished claude `pid` left (only sockets, only that pid's). Never throws. */
export function removeClaudeSocket(pid: number, env: Record<string, string | undefined>): void {
  for (const file of claudeSocketPaths(pid, env)) {
    try {
      if (lstatSync(file).isSocket()) rmSync(file, { force: true });
    } catch {
      // No socket there: claude removed it itself or never made one.
    }
  }
}
