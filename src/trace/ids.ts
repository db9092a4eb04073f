import { randomBytes } from "node:crypto";

// 9 base-36 digits of milliseconds last until the year 5188; 4 digits of counter allow 1.6M ids per ms.
const TIME_WIDTH = 9;
const COUNTER_WIDTH = 4;
const COUNTER_LIMIT = 36 ** COUNTER_WIDTH;

// Fixed per process: separates ids that two processes mint in the same millisecond with the same counter.
const PROCESS_TAG = Array.from(randomBytes(8), (byte) => (byte % 36).toString(36)).join("");

let lastTime = 0;
let counter = 0;
let timeText = "";

/**
 * A new unique id `<prefix>_<time><counter><process tag>`, e.g. `evt_0m3k9x2a10000k3j9d0qz`.
 * Contract: never throws; ids from one process sort (as strings) in creation order, even when the
 * clock steps back; ids from different processes sort by creation millisecond.
 * @example
 * newId("evt"); // "evt_0lx3kq9ab0000f0h2k8zq"
 */
export function newId(prefix: string): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    counter = 0;
    timeText = lastTime.toString(36).padStart(TIME_WIDTH, "0");
  } else {
    counter += 1;
    if (counter === COUNTER_LIMIT) {
      // Borrow the next millisecond rather than let the counter wrap and break the order.
      lastTime += 1;
      counter = 0;
      timeText = lastTime.toString(36).padStart(TIME_WIDTH, "0");
    }
  }
  return `${prefix}_${timeText}${counter.toString(36).padStart(COUNTER_WIDTH, "0")}${PROCESS_TAG}`;
}
