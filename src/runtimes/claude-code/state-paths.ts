import { homedir } from "node:os";
import path from "node:path";
import type { RuntimeStatePaths } from "../runtime.js";
import { claudeConfigDir } from "./session.js";

/**
 * Where claude keeps its state: its config dir (transcripts, settings, the credential) and, without
 * `CLAUDE_CONFIG_DIR`, `~/.claude.json` beside it (with it, that file lives inside the dir).
 */
export function claudeStatePaths(env: Record<string, string | undefined>): RuntimeStatePaths {
  const folders = [claudeConfigDir(env)];
  if (env.CLAUDE_CONFIG_DIR) return { folders };
  return { folders, files: [path.join(env.HOME || homedir(), ".claude.json")] };
}
