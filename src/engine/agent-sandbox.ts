/**
 * The box each agent of a run works in, resolved once per agent: its settings (`SSSF_SANDBOX` over
 * the config), this machine's sandbox, the run's folders and the runtime's own state folders.
 */

import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import type { AgentConfig, SssfConfig } from "../config/config-types.js";
import type { Runtime } from "../runtimes/runtime.js";
import { gitPathsOf } from "../sandbox/git-paths.js";
import { type AgentSandbox, resolveAgentSandbox } from "../sandbox/resolve-sandbox.js";
import { effectiveSandbox } from "../sandbox/sandbox-settings.js";
import { type SandboxSupport, sandboxSupport } from "../sandbox/sandbox-support.js";
import type { AgentDirs } from "../session/session-dirs.js";

export interface RunFolders {
  /** The run's working tree (its worktree, or the checkout in place). */
  workTree: string;
  /** The operator's checkout. */
  checkoutRoot: string;
  contextHandoffDir: string;
}

const NO_SUPPORT_NEEDED: SandboxSupport = { available: false, reason: "sandbox.mode is off", fix: "" };

export function agentSandboxFor(
  config: SssfConfig,
  agent: AgentConfig,
  runtime: Runtime,
  dirs: AgentDirs,
  folders: RunFolders,
): AgentSandbox {
  const settings = effectiveSandbox(agent.sandbox);
  const env = { ...process.env, ...agent.env };
  let runtimeDirs: string[] = [];
  if (settings.mode !== "off")
    try {
      const state = runtime.statePaths?.(env);
      // A folder the CLI would make on its first start cannot be made inside the box: it is made here.
      for (const folder of state?.folders ?? []) mkdirSync(folder, { recursive: true });
      runtimeDirs = [...(state?.folders ?? []), ...(state?.files ?? []).filter((file) => existsSync(file))];
    } catch {
      // A runtime that cannot say (or make) where it keeps its state gets none writable: its CLI says what failed.
    }
  return resolveAgentSandbox({
    settings,
    support: settings.mode === "off" ? NO_SUPPORT_NEEDED : sandboxSupport(),
    repoRoot: folders.checkoutRoot,
    workTree: folders.workTree,
    gitPaths: [...new Set([...gitPathsOf(folders.workTree), ...gitPathsOf(folders.checkoutRoot)])],
    dataDir: config.dataDir,
    contextHandoffDir: folders.contextHandoffDir,
    agentDirs: [dirs.runtimeSessions],
    runtimeDirs,
    home: env.HOME || homedir(),
  });
}

/** What a run says about an agent's box: that it is not boxed (once per run), and each missing `allow_write` path. */
export function sandboxNotes(
  agent: string,
  sandbox: AgentSandbox,
  unboxedNoted: boolean,
): { message: string; payload: Record<string, unknown> }[] {
  const notes: { message: string; payload: Record<string, unknown> }[] = [];
  if (!sandbox.boxed && !unboxedNoted) {
    const fix = sandbox.fix === "" ? "" : ` (${sandbox.fix})`;
    notes.push({
      message: `agents are not boxed: ${sandbox.reason}${fix}; the write boundary alone checks what they write`,
      payload: { warning: "unboxed", agent, mode: sandbox.mode, reason: sandbox.reason },
    });
  }
  for (const missing of sandbox.missing)
    notes.push({
      message: `agent ${agent}: sandbox.allow_write names ${missing}, which does not exist; left out of the box`,
      payload: { warning: "sandbox_path_missing", agent, path: missing },
    });
  return notes;
}
