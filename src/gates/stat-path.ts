import fs from "node:fs";

/** `fs.statSync` (following symlinks) that answers null when the path cannot be reached: missing, a file in the way, no access. Never throws. */
export function statPath(absolute: string): fs.Stats | null {
  try {
    return fs.statSync(absolute);
  } catch {
    return null;
  }
}
