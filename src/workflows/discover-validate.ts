/**
 * Checking that a repo-local workflow module exports a workflow: the default export, or a named
 * `workflow` export, shaped like `defineWorkflow({ name, description, agents, run })`.
 */
import type { Workflow } from "../api/run-api.js";
import type { ConfigProblem } from "../errors/config-error.js";
import { shortenText } from "../util/shorten-text.js";
import { canonicalWorkflowName } from "./discover-files.js";

/** The workflow a module exports, or every problem that keeps it from being one. */
export interface ValidatedWorkflow {
  workflow: Workflow | undefined;
  /** Empty exactly when `workflow` is set. */
  problems: ConfigProblem[];
}

function describeJs(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return JSON.stringify(shortenText(value, 60));
  return String(value);
}

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "");

/**
 * Validates the module namespace of a workflow file whose name says `expectedName` (canonical, with
 * dashes). The declared `name` must spell the same workflow (`build_docs` and `build-docs` both match
 * `adw_build_docs.ts`), so the command line, `sssf list` and the trace agree. Never throws.
 */
export function validateWorkflowModule(
  namespace: Record<string, unknown>,
  expectedName: string,
): ValidatedWorkflow {
  const exportName = namespace.default !== undefined ? "default" : "workflow";
  const candidate = namespace.default ?? namespace.workflow;
  if (candidate === undefined) {
    const message =
      "exports no workflow: add `export default defineWorkflow({ name, description, agents, run })` (or a named `workflow` export)";
    return { workflow: undefined, problems: [{ path: "", message }] };
  }
  const at = (field: string) => `${exportName === "default" ? "default export" : "export workflow"}${field}`;
  if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) {
    const message = `expected a workflow object from defineWorkflow({ … }), got ${describeJs(candidate)}`;
    return { workflow: undefined, problems: [{ path: at(""), message }] };
  }
  const fields = candidate as Record<string, unknown>;
  const problems: ConfigProblem[] = [];
  const need = (field: string, ok: boolean, what: string) => {
    if (!ok)
      problems.push({ path: at(`.${field}`), message: `expected ${what}, got ${describeJs(fields[field])}` });
  };
  need("name", typeof fields.name === "string" && fields.name !== "", "a non-empty string");
  if (
    typeof fields.name === "string" &&
    fields.name !== "" &&
    canonicalWorkflowName(fields.name) !== expectedName
  ) {
    problems.push({
      path: at(".name"),
      message: `${JSON.stringify(fields.name)} does not match the file name: name it "${expectedName}" or rename the file`,
    });
  }
  need("description", typeof fields.description === "string", "a string");
  need("agents", isStringList(fields.agents), "an array of agent names (strings)");
  need(
    "suites",
    fields.suites === undefined || isStringList(fields.suites),
    "an array of suite names or omitted",
  );
  need(
    "phases",
    fields.phases === undefined || isStringList(fields.phases),
    "an array of phase names or omitted",
  );
  need(
    "bestOf",
    fields.bestOf === undefined || (typeof fields.bestOf === "string" && fields.bestOf !== ""),
    "the name of the phase --best-of applies to, or omitted",
  );
  need("run", typeof fields.run === "function", "a function run(run, request)");
  return problems.length > 0
    ? { workflow: undefined, problems }
    : { workflow: candidate as Workflow, problems: [] };
}
