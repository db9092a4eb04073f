/**
 * An agent outside bubblewrap still dies with sssf: it is started through a small shell that leaves a
 * watcher behind in the agent's process group, reading a pipe whose other end only sssf holds. A line
 * on the pipe means sssf saw the agent end (the watcher leaves quietly); end of file means sssf itself
 * is gone, SIGKILL included, and the watcher kills every process carrying the spawn's marker (those
 * that left the group with `setsid`) and then the whole group. A boxed agent has one too, inside its
 * box: bubblewrap's `--die-with-parent` stays as the second line.
 */

/** The watcher's fd: the fourth stdio entry of the spawn. */
export const LIFELINE_FD = 3;

// $1: the spawn id. The watcher's `$$` is its own (it is exec'd), so it skips itself. One grep lists
// the marked processes and it kills each, again until a scan finds none (a process forked meanwhile
// is caught by the next), then the whole group. Inside bubblewrap /proc is the box's own.
const WATCHER = `if read -r _ <&3; then exit 0; fi
i=0
while [ $i -lt 50 ]; do
  found=0
  for f in $(grep -laF "SSSF_SPAWN_ID=$1" /proc/[0-9]*/environ 2>/dev/null); do
    p=\${f#/proc/}
    p=\${p%/environ}
    [ "$p" = "$$" ] && continue
    kill -9 "$p" 2>/dev/null && found=1
  done
  [ "$found" = 0 ] && break
  i=$((i + 1))
done
kill -9 0`;

const SCRIPT = `id=$1; shift
( exec /bin/sh -c '${WATCHER}' sssf-lifeline "$id" ) </dev/null >/dev/null 2>&1 &
exec "$@" 3<&-`;

/**
 * True where the lifeline shell can run (a POSIX `/bin/sh`) and `SSSF_LIFELINE` is not `off` (then a
 * killed sssf's agents live on until the reaper, `sssf sessions` or `sssf kill`, ends them).
 */
export function lifelineWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.platform !== "win32" && env.SSSF_LIFELINE !== "off";
}

/** `argv` started through the lifeline shell, for the spawn whose marker is `spawnId`. */
export function withLifeline(argv: readonly string[], spawnId: string): string[] {
  return ["/bin/sh", "-c", SCRIPT, "sssf-lifeline", spawnId, ...argv];
}
