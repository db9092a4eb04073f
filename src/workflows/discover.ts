/**
 * Workflow lookup across the built-ins and the repo's own `adws/adw_<name>.ts` files. A repo-local file
 * wins over a built-in of the same name. Only the file a lookup names is ever imported.
 */
import path from "node:path";
import type { Workflow } from "../api/run-api.js";
import { ConfigError } from "../errors/config-error.js";
import { UsageError } from "../errors/usage-error.js";
import {
  canonicalWorkflowName,
  listRepoWorkflowFiles,
  REPO_WORKFLOWS_DIR,
  type RepoWorkflowFile,
} from "./discover-files.js";
import { loadRepoWorkflow } from "./discover-load.js";

/** Where to look besides the built-ins. */
export interface DiscoverOptions {
  /** Repo root whose `adws/` folder holds repo-local workflows; omitted: built-ins only. */
  repoRoot?: string | undefined;
}

/** One workflow as `sssf list` shows it. */
export interface ListedWorkflow {
  /** Canonical name (dashes), the one `sssf run` takes. */
  name: string;
  source: "built-in" | "repo";
  /** Repo-relative path of a repo-local file (`adws/adw_x.ts`); null for a built-in. */
  file: string | null;
  /** A repo-local workflow that replaces the built-in of the same name. */
  overridesBuiltin: boolean;
  /** Null when the file could not be loaded or is not a workflow; `error` says why. */
  workflow: Workflow | null;
  error: string | null;
}

/** Files grouped by canonical name, in name order. */
function groupByName(files: RepoWorkflowFile[]): Map<string, RepoWorkflowFile[]> {
  const groups = new Map<string, RepoWorkflowFile[]>();
  for (const file of files) groups.set(file.name, [...(groups.get(file.name) ?? []), file]);
  return groups;
}

function clashError(repoRoot: string, name: string, files: RepoWorkflowFile[]): ConfigError {
  const paths = files.map((f) => f.relativePath).join(", ");
  return new ConfigError(path.join(repoRoot, REPO_WORKFLOWS_DIR), [
    { path: "", message: `workflow "${name}" is defined by more than one file (${paths}); keep one` },
  ]);
}

function builtinNamed(builtins: ReadonlyMap<string, Workflow>, name: string): Workflow | undefined {
  return builtins.get(name) ?? [...builtins.values()].find((w) => canonicalWorkflowName(w.name) === name);
}

/**
 * The workflow `name` stands for (`build_docs` and `build-docs` alike): the repo's
 * `adws/adw_<name>.ts|.mts|.js|.mjs` when there is one, else the built-in. Imports that one file only.
 *
 * @throws UsageError for an unknown name (listing the available ones); ConfigError for a repo-local
 *   file that fails to load or is not a workflow, or for two files claiming the name.
 */
export async function findWorkflowIn(
  builtins: ReadonlyMap<string, Workflow>,
  name: string,
  options: DiscoverOptions = {},
): Promise<Workflow> {
  const canonical = canonicalWorkflowName(name);
  const files = options.repoRoot ? listRepoWorkflowFiles(options.repoRoot) : [];
  const own = files.filter((f) => f.name === canonical);
  if (own.length > 1 && options.repoRoot) throw clashError(options.repoRoot, canonical, own);
  if (own[0] && options.repoRoot) return loadRepoWorkflow(own[0], options.repoRoot);
  const builtin = builtinNamed(builtins, canonical);
  if (builtin) return builtin;
  const available = [...new Set([...builtins.keys(), ...files.map((f) => f.name)])];
  const add = options.repoRoot
    ? `; or write ${REPO_WORKFLOWS_DIR}/adw_${canonical.replaceAll("-", "_")}.ts`
    : "";
  throw new UsageError(`unknown workflow "${name}" (available: ${available.join(", ")}${add})`, "<workflow>");
}

async function listRepoEntry(repoRoot: string, name: string, files: RepoWorkflowFile[], overrides: boolean) {
  const entry: ListedWorkflow = {
    name,
    source: "repo",
    file: files.map((f) => f.relativePath).join(", "),
    overridesBuiltin: overrides,
    workflow: null,
    error: null,
  };
  try {
    if (files.length > 1) throw clashError(repoRoot, name, files);
    entry.workflow = await loadRepoWorkflow(files[0]!, repoRoot);
  } catch (error) {
    entry.error =
      error instanceof ConfigError
        ? error.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ")
        : (error as Error).message;
  }
  return entry;
}

/**
 * Every workflow: the built-ins in their own order (a repo-local override takes the built-in's place),
 * then the other repo-local ones by name. Repo-local files are all loaded; one that fails is listed
 * with its `error` instead of throwing. Never rejects.
 */
export async function listWorkflowsIn(
  builtins: ReadonlyMap<string, Workflow>,
  options: DiscoverOptions = {},
): Promise<ListedWorkflow[]> {
  const repoRoot = options.repoRoot;
  const groups = repoRoot
    ? groupByName(listRepoWorkflowFiles(repoRoot))
    : new Map<string, RepoWorkflowFile[]>();
  const listed: Promise<ListedWorkflow>[] = [];
  for (const [name, workflow] of builtins) {
    const files = groups.get(canonicalWorkflowName(name));
    if (files && repoRoot) {
      groups.delete(canonicalWorkflowName(name));
      listed.push(listRepoEntry(repoRoot, canonicalWorkflowName(name), files, true));
    } else {
      listed.push(
        Promise.resolve({
          name,
          source: "built-in",
          file: null,
          overridesBuiltin: false,
          workflow,
          error: null,
        }),
      );
    }
  }
  for (const [name, files] of groups) if (repoRoot) listed.push(listRepoEntry(repoRoot, name, files, false));
  return Promise.all(listed);
}
