/**
 * Finding repo-local workflow files without loading them: `adws/adw_<name>.ts` (or `.mts`, `.js`,
 * `.mjs`) in the repo root. Listing the folder is all `sssf run prompt` pays for a repo's workflows.
 */
import { type Dirent, readdirSync } from "node:fs";
import path from "node:path";

/** The folder, relative to the repo root, that holds repo-local workflows. */
export const REPO_WORKFLOWS_DIR = "adws";

/** `adw_<name>.<ext>`: a lowercase name, then one of the loadable extensions. */
const WORKFLOW_FILE = /^adw_([a-z0-9][a-z0-9_-]*)\.(ts|mts|js|mjs)$/;

/** A workflow file found in the repo, not yet loaded. */
export interface RepoWorkflowFile {
  /** The canonical workflow name (dashes): `adw_build_docs.ts` → `build-docs`. */
  name: string;
  /** Absolute path of the file. */
  file: string;
  /** Repo-relative POSIX path, for messages (`adws/adw_build_docs.ts`). */
  relativePath: string;
}

/**
 * The canonical spelling of a workflow name: underscores become dashes, so `build_docs` and
 * `build-docs` name the same workflow. Never throws.
 */
export function canonicalWorkflowName(name: string): string {
  return name.replaceAll("_", "-");
}

/**
 * The canonical workflow name a file name stands for, or undefined when the name is not a workflow
 * file (`adw_notes.md`, `adw_x.d.ts`, `helpers.ts`). Never throws.
 */
export function workflowNameFromFile(fileName: string): string | undefined {
  if (fileName.endsWith(".d.ts") || fileName.endsWith(".d.mts")) return undefined;
  const match = WORKFLOW_FILE.exec(fileName);
  return match?.[1] ? canonicalWorkflowName(match[1]) : undefined;
}

/**
 * Every workflow file in `<repoRoot>/adws/`, sorted by name then path. Only regular files count; a
 * missing or unreadable folder yields []. Two files may map to the same name (`adw_x.ts` and
 * `adw_x.js`): both are returned and the caller reports the clash. Reads one directory, loads nothing.
 * Never throws.
 */
export function listRepoWorkflowFiles(repoRoot: string): RepoWorkflowFile[] {
  const dir = path.join(repoRoot, REPO_WORKFLOWS_DIR);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: RepoWorkflowFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const name = workflowNameFromFile(entry.name);
    if (name === undefined) continue;
    found.push({
      name,
      file: path.join(dir, entry.name),
      relativePath: `${REPO_WORKFLOWS_DIR}/${entry.name}`,
    });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name) || a.relativePath.localeCompare(b.relativePath));
}
