/**
 * An idle timer that does not count codex's "Reconnecting..." lines as activity. On a refused or
 * dropped connection codex never gives up: it prints a retry line every few seconds to minutes,
 * which would keep spawnAgent's own idle timer (any output counts) from ever firing.
 */

/** Tells the watch what each stdout line was. */
export interface StallWatch {
  line(reconnecting: boolean): void;
  stop(): void;
  /** Whether the watch fired. */
  readonly stalled: boolean;
}

/**
 * Calls `onStall` once when, for `idleMs`, codex printed only retry lines (at least one). Quiet
 * periods without any line are left to spawnAgent's idle timeout. `idleMs <= 0` disables it.
 */
export function createStallWatch(idleMs: number, onStall: () => void): StallWatch {
  let lastProgress = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let stalled = false;
  const enabled = Number.isFinite(idleMs) && idleMs > 0;
  const arm = (delay: number) => {
    timer = setTimeout(
      () => {
        const quiet = Date.now() - lastProgress;
        if (quiet < idleMs) {
          arm(idleMs - quiet);
          return;
        }
        stalled = true;
        timer = undefined;
        onStall();
      },
      Math.max(0, delay),
    );
  };
  return {
    line(reconnecting) {
      if (!enabled || stalled) return;
      if (!reconnecting) {
        lastProgress = Date.now();
        clearTimeout(timer);
        timer = undefined;
      } else if (timer === undefined) {
        arm(lastProgress + idleMs - Date.now());
      }
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
    get stalled() {
      return stalled;
    },
  };
}
