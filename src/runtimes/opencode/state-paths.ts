import { homedir } from "node:os";
import path from "node:path";
import type { RuntimeStatePaths } from "../runtime.js";

/** opencode's XDG folders: data (sessions, the credential in auth.json), config, state and cache. */
export function opencodeStatePaths(env: Record<string, string | undefined>): RuntimeStatePaths {
  const home = env.HOME || homedir();
  const xdg = (name: string, fallback: string) =>
    path.join(env[name] || path.join(home, fallback), "opencode");
  return {
    folders: [
      xdg("XDG_DATA_HOME", ".local/share"),
      xdg("XDG_CONFIG_HOME", ".config"),
      xdg("XDG_STATE_HOME", ".local/state"),
      xdg("XDG_CACHE_HOME", ".cache"),
    ],
  };
}
