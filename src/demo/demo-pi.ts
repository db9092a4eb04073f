/**
 * The pi CLI the demo drives, and the private pi world it runs in: an agent dir of its own (a `fake`
 * provider priced so cost is real, retries off) and a scratch HOME, so the user's ~/.pi is never read
 * or written, plus the proxy variables that send any stray connection into the fake's egress trap.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { SssfError } from "../errors/sssf-error.js";
import { locatePi, PI_PACKAGE } from "../runtimes/pi/install.js";
import { fakeProxyEnv } from "../testing/fake-model/fake-model-env.js";
import { FAKE_PI_MODEL, writeFakePiWorld } from "../testing/fake-model/pi-agent-dir.js";

/** The pi version sssf's tests and this demo's script are written against. */
export const DEMO_PI_VERSION = "0.73.1";
/** The model every demo agent uses: provider `fake` in the demo's own models.json. */
export const DEMO_MODEL = FAKE_PI_MODEL;

/** A pi the demo can run: the command prefix, and where it was found. */
export interface DemoPi {
  command: string[];
  /** pi's package folder, or the binary when it is a standalone pi. */
  location: string;
  version: string | null;
  /** `sssf`: the dev dependency installed with sssf; `PATH`: a pi found on PATH. */
  source: "sssf" | "PATH";
}

/** The folder of an installed package, or null when it is not installed. */
export type FindPackage = (name: string) => string | null;

/** The folder of package `name` that Node's resolution would find from sssf's own files, or null. */
function installedPackage(name: string): string | null {
  const folders = createRequire(import.meta.url).resolve.paths(name) ?? [];
  const found = folders.find((folder) => existsSync(path.join(folder, name, "package.json")));
  return found === undefined ? null : path.join(found, name);
}

/**
 * The pi installed with sssf (its dev dependency), run with this Node; else `pi` on PATH. Throws
 * SssfError (exit 2) naming the package to install when there is neither: the demo never falls back
 * to anything that is not pi.
 */
export function locateDemoPi(
  findPackage: FindPackage = installedPackage,
  env: Record<string, string | undefined> = process.env,
): DemoPi {
  const where = { cwd: process.cwd(), env };
  const installed = findPackage(PI_PACKAGE);
  // pi's package has its CLI at dist/cli.js.
  const cli = installed === null ? null : path.join(installed, "dist/cli.js");
  if (cli !== null) {
    const command = [process.execPath, cli];
    const own = locatePi(command, where);
    // No package folder means cli.js is not there: a broken install, so look further.
    if (own?.packageDir) return { command, location: own.packageDir, version: own.version, source: "sssf" };
  }
  const onPath = locatePi(["pi"], where);
  if (onPath !== null) {
    return {
      command: ["pi"],
      location: onPath.packageDir ?? onPath.binary,
      version: onPath.version,
      source: "PATH",
    };
  }
  throw new SssfError(
    "runtime_unknown",
    `sssf demo runs the real pi CLI, which is not installed: install ${PI_PACKAGE}@${DEMO_PI_VERSION} ` +
      `(npm ci in a clone of sssf does; else npm install -g ${PI_PACKAGE}@${DEMO_PI_VERSION})`,
    { exitCode: 2 },
  );
}

/** Where the demo keeps pi's private world, and the environment that points pi at it. */
export interface DemoPiWorld {
  agentDir: string;
  home: string;
  /** Added to every demo agent's `env` (in memory only: the committed config stays as a user would write it). */
  env: Record<string, string>;
}

/**
 * Writes pi's agent dir under `root` (`models.json` with provider `fake` at `fakeUrl`, `settings.json`
 * with retries off; `writeFakePiWorld` of the fake model kit) and a scratch HOME, and returns the env
 * for pi, the fake's egress trap included. Throws on a file system error.
 */
export function preparePiWorld(root: string, fakeUrl: string): DemoPiWorld {
  const world = writeFakePiWorld(root, fakeUrl);
  return { agentDir: world.agentDir, home: world.home, env: { ...world.env, ...fakeProxyEnv(fakeUrl) } };
}
