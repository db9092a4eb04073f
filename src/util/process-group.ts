import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";

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

/**
 * Terminates every tracked group and every process marked with a run of this process in progress
 * (used by the signal handlers and the abort of a run).
 */
export async function terminateAllProcessGroups(graceMs = 2000): Promise<void> {
  await Promise.all([
    ...trackedProcessGroups().map((pid) => terminateProcessGroup(pid, graceMs)),
    ...[...activeRunIds].map((runId) =>
      terminateRunProcesses({ marker: { name: RUN_ID_ENV, value: runId } }, graceMs),
    ),
  ]);
  liveGroups.clear();
}

/*
 * Markers: every child sssf spawns carries env names saying whose it is, so a process that left its
 * group (`setsid`, a daemonizing tool) is still found: on Linux by scanning `/proc/<pid>/environ`
 * (readable for this user's processes only), elsewhere only the recorded groups are reached.
 */

/** The session a child works for (`<adw_id>`). */
export const ADW_ID_ENV = "SSSF_ADW_ID";
/** The run a child works for: `<adw_id>@<host>:<pid of the sssf running it>`, unique among live runs. */
export const RUN_ID_ENV = "SSSF_RUN_ID";
/** The one spawn (agent send or suite) a child descends from: random, unique per spawn. */
export const SPAWN_ID_ENV = "SSSF_SPAWN_ID";

/** The `SSSF_RUN_ID` of the run of `adwId` by the sssf process `pid` on `host`. */
export function runMarkerValue(adwId: string, pid: number, host: string): string {
  return `${adwId}@${host}:${pid}`;
}

interface RunMarker {
  adwId: string;
  runId: string;
}

const currentRun = new AsyncLocalStorage<RunMarker>();
/** Runs of this process in progress: a signal handler ends their marked processes too. */
const activeRunIds = new Set<string>();

/**
 * Runs `work` as the run of `adwId` by this process: every child spawned inside it (agents, suites)
 * gets `SSSF_ADW_ID` and `SSSF_RUN_ID` in its env, and `terminateAllProcessGroups` reaches the marked
 * processes while it lasts.
 */
export async function withRunMarker<T>(adwId: string, work: () => Promise<T>): Promise<T> {
  const marker: RunMarker = { adwId, runId: runMarkerValue(adwId, process.pid, hostname()) };
  activeRunIds.add(marker.runId);
  try {
    return await currentRun.run(marker, work);
  } finally {
    activeRunIds.delete(marker.runId);
  }
}

/** The markers one new child gets: the current run's (when inside `withRunMarker`) and a fresh spawn id. */
export function childMarkers(): { env: Record<string, string>; spawnId: string } {
  const spawnId = `${process.pid.toString(36)}-${randomBytes(6).toString("hex")}`;
  const run = currentRun.getStore();
  const env: Record<string, string> = { [SPAWN_ID_ENV]: spawnId };
  if (run !== undefined) {
    env[ADW_ID_ENV] = run.adwId;
    env[RUN_ID_ENV] = run.runId;
  }
  return { env, spawnId };
}

const digit = (entry: string) => entry.charCodeAt(0) >= 48 && entry.charCodeAt(0) <= 57;

/**
 * Pids of the live processes whose environment holds `name=value` exactly (this process excluded).
 * Linux only ([] elsewhere, or when `/proc` cannot be read); other users' processes are unreadable
 * and skipped; zombies have no environment and are skipped. Never throws.
 */
export function findMarkedProcesses(name: string, value: string): number[] {
  if (process.platform !== "linux") return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const first = Buffer.from(`${name}=${value}\0`, "utf8");
  const inside = Buffer.from(`\0${name}=${value}\0`, "utf8");
  const found: number[] = [];
  for (const entry of entries) {
    if (!digit(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    if (environ.subarray(0, first.length).equals(first) || environ.includes(inside)) found.push(pid);
  }
  return found;
}

/** The process group of `pid` (Linux), or null. Never throws. */
function processGroupOf(pid: number | "self"): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    return Number.isInteger(pgid) && pgid > 1 ? pgid : null;
  } catch {
    return null;
  }
}

/** What {@link terminateRunProcesses} ends. */
export interface RunProcessTarget {
  /** Processes carrying this env marker (Linux), and the groups they are in (never this process's own). */
  marker?: { name: string; value: string };
  /** Recorded process groups (their leaders' pids): ended when still alive. */
  groups?: readonly number[];
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

/**
 * Ends every process of `target`: SIGTERM to the marked processes and to every group involved, then
 * SIGKILL after `graceMs` to whatever still lives (rescanned, so children started meanwhile are
 * caught too). Resolves with how many processes and groups were signalled (0: nothing was left).
 * Never throws.
 */
export async function terminateRunProcesses(target: RunProcessTarget, graceMs = 1000): Promise<number> {
  const ownGroup = processGroupOf("self");
  const scan = () => {
    const pids = target.marker ? findMarkedProcesses(target.marker.name, target.marker.value) : [];
    const groups = new Set<number>();
    for (const pid of pids) {
      const group = processGroupOf(pid);
      if (group !== null && group !== ownGroup) groups.add(group);
    }
    for (const group of target.groups ?? [])
      if (group > 1 && group !== ownGroup && processGroupAlive(group)) groups.add(group);
    return { pids, groups: [...groups] };
  };
  const first = scan();
  const signalled = first.pids.length + first.groups.length;
  if (signalled === 0) return 0;
  for (const group of first.groups) signalProcessGroup(group, "SIGTERM");
  for (const pid of first.pids) signalPid(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  let left = scan();
  while (left.pids.length + left.groups.length > 0 && Date.now() < deadline) {
    await sleep(25);
    left = scan();
  }
  for (const group of left.groups) signalProcessGroup(group, "SIGKILL");
  for (const pid of left.pids) signalPid(pid, "SIGKILL");
  for (let i = 0; i < 40; i++) {
    const still = scan();
    if (still.pids.length + still.groups.length === 0) break;
    await sleep(25);
  }
  return signalled;
}

/** Ends what one spawn left behind: every process carrying its spawn id (see {@link childMarkers}). */
export function terminateSpawnLeftovers(spawnId: string, graceMs = 500): Promise<number> {
  return terminateRunProcesses({ marker: { name: SPAWN_ID_ENV, value: spawnId } }, graceMs);
}
