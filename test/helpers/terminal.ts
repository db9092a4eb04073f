import { spawn } from "node:child_process";
import { cliPath, collect } from "./sandbox.js";

/**
 * What a terminal shows at the end of `raw` (a pseudo-terminal's bytes): the live area's frames are
 * erased as the terminal erases them (cursor up, erase line), colors and cursor visibility dropped.
 */
export function screen(raw: string): string {
  const lines: string[] = [];
  let current = "";
  const text = raw.replace(/\r\n/g, "\n").replace(/\x1b\[\?25[hl]/g, "");
  for (let i = 0; i < text.length; i++) {
    const rest = text.slice(i);
    const sgr = /^\x1b\[[0-9;]*m/.exec(rest);
    if (sgr) {
      i += sgr[0].length - 1;
    } else if (rest.startsWith("\x1b[1A\x1b[2K")) {
      current = "";
      lines.pop();
      i += "\x1b[1A\x1b[2K".length - 1;
    } else if (text[i] === "\r") {
      current = "";
    } else if (text[i] === "\n") {
      lines.push(current);
      current = "";
    } else current += text[i];
  }
  return `${lines.join("\n")}\n${current}`;
}

/** Runs the CLI in `cwd` on a pseudo-terminal (`script`) `columns` wide, as a person at a terminal would. */
export function runOnTerminal(
  cwd: string,
  args: string[],
  extra: Record<string, string> = {},
  columns = 100,
): Promise<{ code: number | null; stdout: string }> {
  const words = [process.execPath, cliPath, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`);
  // A pseudo-terminal without a size: give it one, as a terminal window has.
  const command = `stty cols ${columns} rows 40; ${words.join(" ")}`;
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color", COLUMNS: "100" };
  for (const name of ["NO_COLOR", "CI", "FORCE_COLOR"]) delete env[name];
  Object.assign(env, extra);
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child);
}
