import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ScriptedToolCall } from "../../src/testing/index.js";
import type { Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";

export interface Row {
  [key: string]: unknown;
}

/** The fields of /proc/<pid>/stat after the command name: state, ppid, pgrp, session, … (null when gone). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** True while `pid` is a live process (a zombie waiting for a reaping parent counts as gone). */
export function running(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== null && fields[0] !== "Z" && fields[0] !== "X";
}

/** The process group of `pid`. */
export function groupOf(pid: number): number {
  return Number(statFields(pid)?.[2]);
}

/**
 * A scripted tool call whose command starts `sleep 1000` in a session of its own (`setsid`): it leaves
 * the agent's process group, so only the env marker finds it. Its pid goes to `pidFile`.
 */
export function setsidSleep(pidFile: string): ScriptedToolCall {
  return {
    tool: "bash",
    args: { command: "setsid sleep" },
    bash: `setsid sh -c 'echo $$ > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"; exec sleep 1000' >/dev/null 2>&1 < /dev/null &`,
  };
}

/** Waits for a pid written to `file` and returns it. */
export async function pidFrom(file: string, what: string): Promise<number> {
  // A starting agent on a loaded 2-core machine (CI runs four test files at once) can take over 20 s.
  await waitFor(() => existsSync(file) && readFileSync(file, "utf8").trim() !== "", 60_000, what);
  return Number(readFileSync(file, "utf8").trim());
}

/** What a hanging agent of session `adwId` started: its own pid, its grandchild's, the setsid sleep's. */
export interface AgentTree {
  agent: number;
  grandchild: number;
  escaped: number;
}

/**
 * Waits until the hanging agent (`hangingTurn`) of `adwId` started everything, and checks the setsid
 * sleep really left the agent's group.
 */
export async function agentTree(sb: Sandbox, adwId: string, escapedFile: string): Promise<AgentTree> {
  const grandchild = await pidFrom(
    path.join(sb.sessionDir(adwId), "assistant/exec_sessions/grandchild.pid"),
    "the grandchild",
  );
  const escaped = await pidFrom(escapedFile, "the setsid sleep");
  let agent = 0;
  await waitFor(
    () => {
      try {
        const rows = sb.query<Row>(
          "SELECT pid FROM processes WHERE adw_id = ? AND status = 'running'",
          adwId,
        );
        agent = Number(rows[0]?.pid ?? 0);
      } catch {
        agent = 0;
      }
      return agent > 0;
    },
    20_000,
    "the agent's process row",
  );
  if (!running(agent) || !running(grandchild) || !running(escaped))
    throw new Error(`the agent tree is not all alive: ${agent} ${grandchild} ${escaped}`);
  if (groupOf(escaped) === agent) throw new Error("the setsid sleep did not leave the agent's group");
  return { agent, grandchild, escaped };
}

/** Resolves once none of the tree's processes runs (generous deadline). */
export function treeGone(tree: AgentTree, what: string): Promise<void> {
  return waitFor(
    () => !running(tree.agent) && !running(tree.grandchild) && !running(tree.escaped),
    15_000,
    `${what}: agent ${tree.agent}, grandchild ${tree.grandchild}, setsid sleep ${tree.escaped} gone`,
  );
}

/** Ends whatever a failed test left behind. */
export function killTree(tree: AgentTree | null): void {
  for (const pid of tree ? [tree.escaped, tree.grandchild, tree.agent] : []) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
}

/** A turn that starts a grandchild in its group and a setsid sleep outside it, then never answers. */
export function hangingTurn(escapedFile: string) {
  return { spawn_grandchild: true, tool_calls: [setsidSleep(escapedFile)], hang: true };
}
