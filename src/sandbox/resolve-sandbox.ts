/**
 * One agent's box for one run: the policy of docs/sandbox.md turned into absolute paths. Writable: the
 * working tree (at a stable path inside the box), `context_handoff/` (likewise), the agent's session
 * folders and its runtime's own folders, and `sandbox.allow_write`. Read-only: everything else, every
 * git dir and `.git` file included, and sssf's data folder where it lies inside the working tree.
 * Unreadable: the credential paths and `sandbox.deny_read`.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { BOX_CONTEXT_HANDOFF, boxWorkPath } from "./box-paths.js";
import { credentialPaths } from "./credential-paths.js";
import type { SandboxMode, SandboxSettings } from "./sandbox-settings.js";
import type { SandboxSupport } from "./sandbox-support.js";
import type { SendSandbox } from "./send-sandbox.js";

export interface SandboxInputs {
  settings: SandboxSettings;
  support: SandboxSupport;
  /** The operator's checkout: its folder's name makes the stable path. */
  repoRoot: string;
  /** The run's working tree (a worktree, or the checkout in place). */
  workTree: string;
  /** Git dirs and `.git` files the agent must not change (read-only inside the box). */
  gitPaths: string[];
  /** sssf's data folder (sessions, the trace db): read-only where it lies inside the working tree. */
  dataDir: string;
  contextHandoffDir: string;
  /** Folders of this agent that sssf manages (its runtime session folder): writable at their own paths. */
  agentDirs: string[];
  /** The runtime's own state folders (its config, sessions and credential): writable at their own paths. */
  runtimeDirs: string[];
  home: string;
}

export type AgentSandbox =
  | {
      boxed: true;
      mode: SandboxMode;
      sandbox: SendSandbox;
      /** The working tree and `context_handoff/` as the agent sees them. */
      boxCwd: string;
      boxContextHandoffDir: string;
      /** `sandbox.allow_write` entries that do not exist (left out of the box). */
      missing: string[];
    }
  | {
      boxed: false;
      mode: SandboxMode;
      /** Why this agent runs unboxed, and what would box it. */
      reason: string;
      fix: string;
      /** `sandbox.allow_write` entries that do not exist. */
      missing: string[];
    };

const within = (root: string, file: string) => file === root || file.startsWith(`${root}${path.sep}`);

const unique = (paths: string[]) => [...new Set(paths.map((p) => path.resolve(p)))];

export function resolveAgentSandbox(inputs: SandboxInputs): AgentSandbox {
  const { settings, support } = inputs;
  const missing = settings.allowWrite.filter((entry) => !existsSync(entry));
  if (settings.mode === "off") {
    return {
      boxed: false,
      mode: "off",
      reason: "sandbox.mode is off",
      fix: "set sandbox.mode: auto",
      missing,
    };
  }
  if (!support.available)
    return { boxed: false, mode: settings.mode, reason: support.reason, fix: support.fix, missing };
  if (support.backend === "seatbelt" && settings.network !== "open" && settings.network.length > 0)
    return {
      boxed: false,
      mode: settings.mode,
      reason:
        "sandbox-exec cannot limit the network to a list of hosts (sssf's proxy needs a network namespace)",
      fix: "set sandbox.network to open or [] on macOS",
      missing,
    };
  const remaps = support.backend === "bwrap";
  const boxCwd = remaps ? boxWorkPath(inputs.repoRoot) : inputs.workTree;
  const boxContextHandoffDir = remaps ? BOX_CONTEXT_HANDOFF : inputs.contextHandoffDir;
  const ownDirs = unique([...inputs.agentDirs, ...inputs.runtimeDirs]);
  const writable = [
    { host: path.resolve(inputs.workTree), box: boxCwd },
    { host: path.resolve(inputs.contextHandoffDir), box: boxContextHandoffDir },
    ...unique([...ownDirs, ...settings.allowWrite.filter((entry) => !missing.includes(entry))]).map(
      (dir) => ({
        host: dir,
        box: dir,
      }),
    ),
  ];
  const workTree = path.resolve(inputs.workTree);
  const readOnly = unique([
    ...inputs.gitPaths,
    ...(within(workTree, path.resolve(inputs.dataDir)) ? [inputs.dataDir] : []),
  ]);
  // A runtime's own folder holds the credential it calls its model with: it stays readable.
  const denyRead = unique([...credentialPaths(inputs.home), ...settings.denyRead]).filter(
    (file) => !ownDirs.some((dir) => within(file, dir) || within(dir, file)),
  );
  return {
    boxed: true,
    mode: settings.mode,
    sandbox: {
      backend: support.backend,
      program: support.program,
      hostCwd: workTree,
      writable,
      readOnly,
      denyRead,
      network: settings.network,
    },
    boxCwd,
    boxContextHandoffDir,
    missing,
  };
}

/** The policy as the trace records it on each send (paths only, never contents). */
export function sandboxTracePayload(agentSandbox: AgentSandbox): Record<string, unknown> {
  if (!agentSandbox.boxed) return { boxed: false, mode: agentSandbox.mode, reason: agentSandbox.reason };
  const { sandbox } = agentSandbox;
  return {
    boxed: true,
    mode: agentSandbox.mode,
    backend: sandbox.backend,
    writable: sandbox.writable.map((entry) =>
      entry.host === entry.box ? entry.host : `${entry.host} -> ${entry.box}`,
    ),
    read_only: sandbox.readOnly,
    deny_read: sandbox.denyRead,
    network: sandbox.network,
  };
}
