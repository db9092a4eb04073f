import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/**
 * Every entry under `dir` (or `dir` itself when it is a file), by relative path: kind, permission bits
 * and a hash of the bytes (a link's target), for "byte- and mode-identical" assertions. A missing path
 * gives an empty map.
 */
export function treeState(dir: string): Map<string, string> {
  const state = new Map<string, string>();
  const visit = (relative: string) => {
    const absolute = relative === "" ? dir : path.join(dir, relative);
    const stat = lstatSync(absolute, { throwIfNoEntry: false });
    if (!stat) return;
    const mode = (stat.mode & 0o7777).toString(8);
    if (stat.isSymbolicLink()) state.set(relative, `link ${readlinkSync(absolute)}`);
    else if (stat.isFile()) {
      const sha = createHash("sha1").update(readFileSync(absolute)).digest("hex");
      state.set(relative, `file ${mode} ${sha}`);
    } else if (stat.isDirectory()) {
      state.set(relative, `dir ${mode}`);
      for (const name of readdirSync(absolute).sort()) visit(relative === "" ? name : `${relative}/${name}`);
    }
  };
  visit("");
  return state;
}
