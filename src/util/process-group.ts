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

/** Sends `signal` to the whole group led by `pid`. Never throws (the group may already be gone). */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of the group led by `pid` is alive. */
export function processGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
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
