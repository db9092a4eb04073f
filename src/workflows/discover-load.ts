/**
 * Loading one repo-local workflow file: register the loader hooks, import the file through Node's own
 * loader, validate what it exports. Every failure is a `ConfigError` naming the file, never a stack.
 */
import { pathToFileURL } from "node:url";
import type { Workflow } from "../api/run-api.js";
import { ConfigError, type ConfigProblem } from "../errors/config-error.js";
import { describeLoadError } from "./discover-errors.js";
import type { RepoWorkflowFile } from "./discover-files.js";
import { registerWorkflowLoader } from "./discover-hook.js";
import { validateWorkflowModule } from "./discover-validate.js";

/** A `ConfigError` whose first line says it is a workflow file, not the YAML config, that is wrong. */
export function workflowFileError(file: string, problems: ConfigProblem[]): ConfigError {
  const error = new ConfigError(file, problems);
  const lines = problems.map((p) => `  ${p.path ? `${p.path}: ` : ""}${p.message}`);
  error.message = `invalid workflow file ${file}:\n${lines.join("\n")}`;
  return error;
}

/**
 * Imports and validates a workflow file found by `listRepoWorkflowFiles`, through Node's own loader
 * (not a bundler's or test runner's `import()`). A module is evaluated once per process (Node caches
 * it). The workflow's `name` comes back in the canonical dashed spelling.
 *
 * @throws ConfigError naming the file: a syntax error (`adws/adw_x.ts:2:18: …`), an exception or a
 *   missing import while loading, no workflow export, or an export that is not a workflow.
 */
export async function loadRepoWorkflow(entry: RepoWorkflowFile, repoRoot: string): Promise<Workflow> {
  try {
    await registerWorkflowLoader(repoRoot);
  } catch (error) {
    const message = `cannot load TypeScript workflows: tsx failed to start (${(error as Error).message})`;
    throw workflowFileError(entry.file, [{ path: "", message }]);
  }
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(entry.file).href)) as Record<string, unknown>;
  } catch (error) {
    throw workflowFileError(entry.file, [
      { path: "", message: describeLoadError(error, entry.file, entry.relativePath) },
    ]);
  }
  const { workflow, problems } = validateWorkflowModule(namespace, entry.name);
  if (!workflow) throw workflowFileError(entry.file, problems);
  // `build_docs` declared in adw_build_docs.ts: the trace and `sssf list` use the one canonical spelling.
  return workflow.name === entry.name ? workflow : { ...workflow, name: entry.name };
}
