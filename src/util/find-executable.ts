import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where `program` would be run from: itself when it contains a slash (resolved against `cwd`), else
 * the first executable match on `PATH` (from `env`, default the process's). Null when not found.
 * Never throws, never spawns.
 */
export function findExecutable(
  program: string,
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): string | null {
  if (program === "") return null;
  if (program.includes("/")) {
    const file = path.resolve(options.cwd ?? process.cwd(), program);
    return isExecutableFile(file) ? file : null;
  }
  const searchPath = (options.env ?? process.env).PATH ?? "";
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === "") continue;
    const file = path.join(dir, program);
    if (isExecutableFile(file)) return file;
  }
  return null;
}
