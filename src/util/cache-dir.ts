/**
 * The user's cache folder for sssf: `$SSSF_CACHE_DIR`, else `$XDG_CACHE_HOME/sssf`, else
 * `~/.cache/sssf`; an empty `SSSF_CACHE_DIR` turns every cache off. What it holds is read back as a
 * config or as compiled code, so a folder is used only when it is this user's and no one else may write
 * into it (`trustedDir`).
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** The cache folder, or null when caching is off. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const explicit = env.SSSF_CACHE_DIR;
  if (explicit !== undefined) return explicit === "" ? null : path.resolve(explicit);
  // A relative XDG_CACHE_HOME is invalid (the XDG spec says to ignore it).
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), ".cache");
  return path.join(base, "sssf");
}

/** True when `dir` is a folder of this user's that no one else may write into. Throws when it is not there. */
export function trustedDir(dir: string): boolean {
  const stat = statSync(dir);
  if (!stat.isDirectory()) return false;
  const uid = process.getuid?.();
  return uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0);
}
