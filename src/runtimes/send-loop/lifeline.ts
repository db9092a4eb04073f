/**
 * An agent outside bubblewrap still dies with sssf: it is started through a small shell that leaves a
 * watcher behind in the agent's process group, reading a pipe whose other end only sssf holds. A line
 * on the pipe means sssf saw the agent end (the watcher leaves quietly); end of file means sssf itself
 * is gone, SIGKILL included, and the watcher kills every process carrying the spawn's marker (those
 * that left the group with `setsid`) and then the whole group. Inside bubblewrap `--die-with-parent`
 * does the same, so a boxed agent needs none.
 */

/** The watcher's fd: the fourth stdio entry of the spawn. */
export const LIFELINE_FD = 3;

// $1: the spawn id; the rest: the agent's argv. The watcher's `$$` is its own (it is exec'd), so it
// skips itself while it kills the marked processes, and `kill -9 0` ends the group last.
const WATCHER = `if read -r _ <&3; then exit 0; fi
for d in /proc/[0-9]*; do
  p=\${d#/proc/}
  [ "$p" = "$$" ] && continue
  grep -qaF "SSSF_SPAWN_ID=$1" "$d/environ" 2>/dev/null && kill -9 "$p" 2>/dev/null
done
kill -9 0`;

const SCRIPT = `id=$1; shift
( exec /bin/sh -c '${WATCHER}' sssf-lifeline "$id" ) </dev/null >/dev/null 2>&1 &
exec "$@" 3<&-`;

/** True where the lifeline shell can run (a POSIX `/bin/sh`). */
export const lifelineSupported = process.platform !== "win32";

/** `argv` started through the lifeline shell, for the spawn whose marker is `spawnId`. */
export function withLifeline(argv: readonly string[], spawnId: string): string[] {
  return ["/bin/sh", "-c", SCRIPT, "sssf-lifeline", spawnId, ...argv];
}
