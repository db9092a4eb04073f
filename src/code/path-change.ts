/** A path the phase created, modified, deleted or renamed, relative to the repo root (POSIX separators). */
export interface PathChange {
  path: string;
  change: "added" | "modified" | "deleted" | "renamed";
  previousPath?: string;
}
