import { SssfError } from "../errors/sssf-error.js";
import { terminateAllProcessGroups } from "../util/process-group.js";

/** How long an interrupted workflow gets to let its phases record their end before the run finalizes. */
const SETTLE_AFTER_ABORT_MS = 2000;

/**
 * Resolves with the workflow, or rejects once `signal` aborts, every agent process group is gone,
 * and the workflow has settled (at most SETTLE_AFTER_ABORT_MS), so no phase writes to a closed trace.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(interrupted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      terminateAllProcessGroups()
        .then(() => settledWithin(work, SETTLE_AFTER_ABORT_MS))
        .then(() => reject(interrupted(signal)), reject);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? interrupted(signal) : error);
      },
    );
  });
}

/** Resolves when `work` settles either way, or after `ms`. Never rejects. */
function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}

function interrupted(signal: AbortSignal): SssfError {
  return new SssfError(
    "interrupted",
    `interrupted by ${typeof signal.reason === "string" ? signal.reason : "abort"}`,
  );
}
