/**
 * codex's own sandbox on Linux, outside sssf's box. codex 0.171 runs every shell command through its
 * helper `codex-linux-sandbox`, which is the codex binary itself started under that name: when
 * `/usr/bin/bwrap` exists, codex runs it and bwrap starts the helper inside by name, through `PATH`
 * (`bwrap: execvp codex-linux-sandbox: No such file or directory` when it is not there). codex puts
 * that name on `PATH` itself, as a link in `$CODEX_HOME/tmp/arg0-linux/`, but refuses to when
 * `CODEX_HOME` lies under the temporary folder, and then every shell call fails. So sssf keeps the
 * link in a folder of its own (the agent's `codex_sessions/codex-path/`) and puts that folder first on
 * the agent's `PATH`. See docs/runtimes/codex.md.
 */

import { randomUUID } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  symlinkSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";

/** The name codex's arg0 dispatch answers to as its Linux sandbox helper. */
export const SANDBOX_HELPER = "codex-linux-sandbox";

/** codex's npm platform packages and their vendor folders, as its `bin/codex.js` maps them. */
const PLATFORM_PACKAGES: Record<string, { name: string; triple: string }> = {
  x64: { name: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  arm64: { name: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
};

function isElf(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const realFile = (file: string): string | null => {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
};

/** The native binary of an npm install of `@openai/codex` whose `bin/codex.js` is `wrapper`, or null. */
function nativeOfNpmWrapper(wrapper: string, arch: string): string | null {
  const root = path.dirname(path.dirname(wrapper));
  const manifest = path.join(root, "package.json");
  try {
    if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name !== "@openai/codex")
      return null;
  } catch {
    return null;
  }
  const platform = PLATFORM_PACKAGES[arch];
  if (platform === undefined) return null;
  const candidates: string[] = [];
  try {
    const platformManifest = createRequire(manifest).resolve(`${platform.name}/package.json`);
    candidates.push(path.join(path.dirname(platformManifest), "vendor", platform.triple, "bin", "codex"));
  } catch {
    // Not installed as its own package: older layouts keep the binary in the main package.
  }
  candidates.push(path.join(root, "vendor", platform.triple, "bin", "codex"));
  return candidates.find((file) => isElf(file)) ?? null;
}

/**
 * The native codex binary behind an argv prefix that runs codex: the program itself when it is a
 * codex binary, or the platform package's binary behind npm's `bin/codex.js` (run directly or as
 * `node …/codex.js`). Null when it cannot be told (another wrapper). Never throws, never spawns.
 */
export function codexNativeBinary(
  command: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; arch?: string },
): string | null {
  const arch = options.arch ?? process.arch;
  const resolve = (program: string | undefined): string | null => {
    if (program === undefined) return null;
    const found = findExecutable(program, { cwd: options.cwd, env: options.env });
    return found === null ? realFile(path.resolve(options.cwd, program)) : realFile(found);
  };
  let program = resolve(command[0]);
  if (program !== null && /^node(js)?$/.test(path.basename(program))) program = resolve(command[1]);
  if (program === null) return null;
  if (isElf(program)) return path.basename(program) === "codex" ? program : null;
  return path.basename(program) === "codex.js" ? nativeOfNpmWrapper(program, arch) : null;
}

/**
 * Makes `<folder>/codex-linux-sandbox` a link to `native` (replaced atomically when it points
 * elsewhere) and returns `folder`. Throws when the folder or the link cannot be made.
 */
export function linkSandboxHelper(folder: string, native: string): string {
  mkdirSync(folder, { recursive: true });
  const link = path.join(folder, SANDBOX_HELPER);
  let current: string | null = null;
  try {
    current = readlinkSync(link);
  } catch {
    current = null;
  }
  if (current !== native) {
    // Unique per call: two sends of one agent may link at once.
    const staged = `${link}.${process.pid}.${randomUUID()}.tmp`;
    symlinkSync(native, staged);
    renameSync(staged, link);
  }
  return folder;
}

/** `PATH` with `folder` first (the agent's own `PATH` when its env sets one, else sssf's). */
export function pathWithFirst(folder: string, env: Record<string, string | undefined>): string {
  const rest = env.PATH ?? "";
  return rest === "" ? folder : `${folder}${path.delimiter}${rest}`;
}
