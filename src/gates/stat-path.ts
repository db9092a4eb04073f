import fs from "node:fs";

/** `fs.statSync` that answers null when the path cannot be reached (missing, a file in the way, no access). */
export function statPath(absolute: string): fs.Stats | null {
  try {
    return fs.statSync(absolute);
  } catch {
    return null;
  }
}
