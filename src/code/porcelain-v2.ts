/** Reading `git status --porcelain=v2 --branch -z`: the one parser of its records. */

/** One path `git status` lists, with HEAD's object id of it (null when HEAD lacks it or it is untracked). */
export interface StatusEntry {
  /** As git prints it, relative to the top level; a nested repository's trailing "/" is dropped. */
  path: string;
  headOid: string | null;
}

/** What one porcelain v2 status says: HEAD, the branch checked out, and each listed path. */
export interface PorcelainStatus {
  /** The commit HEAD is at, or null when its branch has none yet. */
  head: string | null;
  /** The branch checked out (`main`), or null when HEAD is detached (or `--branch` was not given). */
  branch: string | null;
  entries: StatusEntry[];
}

/** Where each kind of record keeps its HEAD object id and its path. */
const V2_FIELDS: Record<string, { head: number; path: number }> = {
  "1": { head: 6, path: 8 },
  "2": { head: 6, path: 9 },
  u: { head: 7, path: 10 },
};
const ZERO_OID = /^0+$/;

/**
 * Parses the NUL-separated output of `git status --porcelain=v2 --branch -z`. Paths with spaces are
 * safe; a rename or copy (`2` record) is listed by its new path, its old path (the next record)
 * skipped. Never throws.
 */
export function parsePorcelainV2(output: string): PorcelainStatus {
  const status: PorcelainStatus = { head: null, branch: null, entries: [] };
  const records = output.split("\0");
  const add = (path: string, headOid: string | null) =>
    status.entries.push({ path: path.replace(/\/$/, ""), headOid });
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? "";
    if (record.startsWith("# branch.oid ")) {
      const oid = record.slice("# branch.oid ".length).trim();
      status.head = oid === "(initial)" ? null : oid;
    } else if (record.startsWith("# branch.head ")) {
      const head = record.slice("# branch.head ".length);
      status.branch = head === "(detached)" ? null : head;
    } else if (record.startsWith("? ")) {
      add(record.slice(2), null);
    } else {
      const layout = V2_FIELDS[record.slice(0, 1)];
      if (!layout || record[1] !== " ") continue;
      const fields = record.split(" ");
      const headOid = fields[layout.head] ?? "";
      add(fields.slice(layout.path).join(" "), ZERO_OID.test(headOid) ? null : headOid);
      if (record.startsWith("2 ")) i++;
    }
  }
  return status;
}
