import path from "node:path";

/**
 * Turns exclude options (repo-relative prefixes like "adws/adw_data", or absolute paths) into clean
 * POSIX prefixes relative to `root`. Absolute paths outside the root and empty entries are dropped.
 */
export function normalizeExcludes(root: string, exclude: readonly string[] = []): string[] {
  const prefixes: string[] = [];
  for (const entry of exclude) {
    const relative = path.isAbsolute(entry) ? path.relative(root, entry) : path.normalize(entry);
    const posix = relative.split(path.sep).join("/").replace(/\/+$/, "");
    if (posix === "" || posix === "." || posix === ".." || posix.startsWith("../") || path.isAbsolute(posix))
      continue;
    prefixes.push(posix);
  }
  return prefixes;
}

/** True when the POSIX relative `file` is one of `prefixes` or lies below one. */
export function isExcluded(file: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => file === prefix || file.startsWith(`${prefix}/`));
}
