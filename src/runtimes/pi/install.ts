/**
 * Where the pi CLI that a send would run lives on disk: its binary, its npm package, and the model
 * catalog it ships (`@mariozechner/pi-ai`'s generated model table). Read from the file system only:
 * nothing here spawns pi.
 */

import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";

/** The npm package of the pi CLI. */
export const PI_PACKAGE = "@mariozechner/pi-coding-agent";
/** The program run when the agent config gives no `command`. */
export const PI_DEFAULT_COMMAND: readonly string[] = ["pi"];
/** pi's built-in model table, relative to the `@mariozechner/pi-ai` package folder. */
const CATALOG_IN_PI_AI = "node_modules/@mariozechner/pi-ai/dist/models.generated.js";

/** A located pi installation; `catalogFile` is null when the built-in model table was not found. */
export interface PiInstall {
  /** Absolute path of the program `command[0]` resolves to. */
  binary: string;
  /** The `@mariozechner/pi-coding-agent` folder, or null (a standalone pi binary). */
  packageDir: string | null;
  version: string | null;
  catalogFile: string | null;
}

/** The command prefix a send runs: the agent's `command`, else `pi` from PATH. */
export function piCommand(command: string[] | undefined): string[] {
  return command !== undefined && command.length > 0 ? command : [...PI_DEFAULT_COMMAND];
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The pi package folder holding `file` (pi's bin is `dist/cli.js` inside it), or null. */
function packageDirAbove(file: string): string | null {
  let dir = path.dirname(file);
  for (let depth = 0; depth < 6; depth += 1) {
    if (readJson(path.join(dir, "package.json"))?.name === PI_PACKAGE) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** `models.generated.js` of the pi-ai package pi would load: nested first, then each hoisted level up. */
function catalogFileFor(packageDir: string): string | null {
  let dir = packageDir;
  for (;;) {
    const candidate = path.join(dir, CATALOG_IN_PI_AI);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

const realFile = (file: string): string | null => {
  try {
    const real = realpathSync(file);
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
};

/**
 * Locates the pi a command prefix runs (`[pi]`, `[node_modules/.bin/pi]`, `[node, …/dist/cli.js]`),
 * resolving relative paths against `cwd` and bare names on `env.PATH`. Null when the program is not
 * found. Never throws, never spawns.
 */
export function locatePi(
  command: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): PiInstall | null {
  const program = command[0];
  const binary = program === undefined ? null : findExecutable(program, options);
  if (binary === null) return null;
  // The program may be an interpreter (node, bun) with pi's cli.js as an argument.
  const files = [binary, ...command.slice(1).map((arg) => path.resolve(options.cwd, arg))];
  for (const file of files) {
    const real = realFile(file);
    const packageDir = real === null ? null : packageDirAbove(real);
    if (packageDir === null) continue;
    const version = readJson(path.join(packageDir, "package.json"))?.version;
    return {
      binary,
      packageDir,
      version: typeof version === "string" ? version : null,
      catalogFile: catalogFileFor(packageDir),
    };
  }
  return { binary, packageDir: null, version: null, catalogFile: null };
}
