/**
 * The files of a commit, for its count and list: from what the engine recorded with the commit (its
 * `committed <sha>` event's `files`: `{path, change, previousPath?}` objects, or plain paths in
 * hand-written traces), else from `git diff-tree --numstat -z`. No Node imports: the client uses it too.
 */

/** A recorded change as a line of the list: its path, or `old → new` for a rename. */
function recordedName(entry: unknown): string | null {
  if (typeof entry === "string") return entry === "" ? null : entry;
  if (typeof entry !== "object" || entry === null) return null;
  const { path, previousPath, previous_path } = entry as Record<string, unknown>;
  if (typeof path !== "string" || path === "") return null;
  const from = typeof previousPath === "string" ? previousPath : previous_path;
  return typeof from === "string" && from !== "" && from !== path ? `${from} → ${path}` : path;
}

/** The recorded files of a commit event's payload, or null when it recorded none (ask git). */
export function recordedFiles(files: unknown): string[] | null {
  if (!Array.isArray(files)) return null;
  const names = files.map(recordedName).filter((name): name is string => name !== null);
  return names.length === 0 && files.length > 0 ? null : names;
}

/**
 * The files of `git diff-tree -r -z --numstat` output: one per record, a rename (`-M`) as
 * `old → new`, a binary file (`-\t-`) like any other, paths taken verbatim (spaces, newlines, any
 * UTF-8), the commit-id line (`--root`, merges) skipped.
 */
export function numstatFiles(output: string): string[] {
  const fields = output.split("\0");
  const files: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    const match = /^(?:[0-9a-f]{40,64}\n)?(-|\d+)\t(-|\d+)\t(.*)$/s.exec(field);
    if (match === null) continue;
    const path = match[3] ?? "";
    if (path !== "") {
      files.push(path);
      continue;
    }
    // A rename or copy: the two paths are the next two fields.
    const from = fields[i + 1] ?? "";
    const to = fields[i + 2] ?? "";
    files.push(`${from} → ${to}`);
    i += 2;
  }
  return files;
}

/** The diff-tree arguments {@link numstatFiles} reads: renames found, a root commit and a merge (against its first parent) included. */
export function numstatArgs(sha: string): string[] {
  return [
    "diff-tree",
    "-r",
    "-z",
    "--root",
    "-M",
    "--numstat",
    "--no-commit-id",
    "--diff-merges=first-parent",
    sha,
    "--",
  ];
}
