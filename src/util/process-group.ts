import { readdirSync, readFileSync } from "node:fs";

/**
 * Process-group control for every child sssf spawns (agents and code phases). Children are started
 * detached, so each leads its own group; killing `-pid` reaches grandchildren too. A registry of
 * live groups lets SIGINT/SIGTERM handlers leave no process behind.
 */

const liveGroups = new Set<number>();

/** Remembers a detached child's group so `terminateAllProcessGroups` can reach it. */
export function trackProcessGroup(pid: number): void {
  liveGroups.add(pid);
}

export function untrackProcessGroup(pid: number): void {
  liveGroups.delete(pid);
}

export function trackedProcessGroups(): number[] {
  return [...liveGroups];
}

/** True while a process with this pid exists, ours or another user's (EPERM). Never throws. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Sends `signal` to the whole group led by `pid`. Never throws (the group may already be gone). */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while any process of the group led by `pid` is alive. On Linux a group whose members are all
 * zombies counts as gone: without a reaping init (containers, sandboxes) zombies linger for seconds,
 * and waiting on them would stretch every kill to the full grace period.
 */
export function processGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform !== "linux" || groupHasLiveMember(pid);
}

function groupHasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * SIGTERM to the group, then SIGKILL after `graceMs` if anything survives. Resolves once the group is
 * gone (or after the SIGKILL when the kernel has not reaped it yet).
 */
export async function terminateProcessGroup(pid: number, graceMs = 2000): Promise<void> {
  if (!signalProcessGroup(pid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!processGroupAlive(pid)) return;
    await sleep(25);
  }
  signalProcessGroup(pid, "SIGKILL");
  for (let i = 0; i < 40 && processGroupAlive(pid); i++) await sleep(25);
}

/** Terminates every tracked group (used by the signal handlers). */
export async function terminateAllProcessGroups(graceMs = 2000): Promise<void> {
  await Promise.all(trackedProcessGroups().map((pid) => terminateProcessGroup(pid, graceMs)));
  liveGroups.clear();
}
