/**
 * `sssf --help` without loading the program: `npm run build` renders the top-level help once into
 * `dist/cli/help.txt` (commander's own output, in an empty folder, to a pipe), and a later `--help`
 * prints that file when commander would print exactly it — output not to a terminal (no width to
 * fit, no colour), no colour forced, and no repo-local workflow to list. Everything else goes
 * through commander.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { listRepoWorkflowFiles } from "../workflows/discover-files.js";

/** The file the build writes, next to the bundled `dist/cli/main.js`. */
export const PRERENDERED_HELP_FILE = "help.txt";

/** Whether the environment asks commander for colour (its `useColor` rules). */
function colourForced(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR || env.FORCE_COLOR === "0" || env.FORCE_COLOR === "false") return false;
  return Boolean(env.FORCE_COLOR) || env.CLICOLOR_FORCE !== undefined;
}

/**
 * Prints the prerendered help and returns true when `argv` is exactly `sssf --help` (or `-h`) and the
 * output would be the same as commander's; false (having printed nothing) otherwise, or when the
 * file is missing (running from src/, or a build that did not write it).
 */
export function printPrerenderedHelp(argv: readonly string[], dir: string): boolean {
  if (argv.length !== 3 || (argv[2] !== "--help" && argv[2] !== "-h")) return false;
  if (process.stdout.isTTY || colourForced(process.env)) return false;
  if (listRepoWorkflowFiles(process.cwd()).length > 0) return false;
  let text: string;
  try {
    text = readFileSync(path.join(dir, PRERENDERED_HELP_FILE), "utf8");
  } catch {
    return false;
  }
  process.stdout.write(text);
  return true;
}
