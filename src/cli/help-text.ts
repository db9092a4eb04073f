/**
 * What `sssf --help` and `sssf run --help` add after commander's usage: examples, the workflows (the
 * built-in ones and the repo's own, with one line each) and the exit codes. `EXIT_CODES` is the one
 * list of exit statuses; README's "Exit codes" line is checked against it by a test.
 */
import path from "node:path";
import { BUILTIN_WORKFLOW_CATALOG } from "../workflows/builtin-catalog.js";
import { listRepoWorkflowFiles } from "../workflows/discover-files.js";

/** Every exit status sssf uses, in order; the help and README list exactly these. */
export const EXIT_CODES: readonly { code: string; meaning: string }[] = [
  { code: "0", meaning: "accepted (a command that is not a run: it succeeded)" },
  { code: "1", meaning: "the run failed or was not accepted (doctor: a problem was found)" },
  { code: "2", meaning: "usage or config error: nothing was started" },
  { code: "129", meaning: "stopped by SIGHUP, after finalizing the session" },
  { code: "130", meaning: "stopped by SIGINT (Ctrl-C), after finalizing the session" },
  { code: "143", meaning: "stopped by SIGTERM, after finalizing the session" },
];

/** One workflow as the help lists it. */
export interface HelpWorkflow {
  name: string;
  description: string;
  source: "built-in" | "repo";
}

// Filled by `prepareHelp` before commander prints help (help text must be ready synchronously).
let workflows: readonly HelpWorkflow[] | null = null;

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * Loads the workflow list the help shows: the built-ins, and the repo-local `adws/adw_<name>.ts` of
 * `cwd` (a file that fails to load is listed with why). Called by main.ts only when help is asked for,
 * so other commands never load a workflow module for it; in a repo with no workflow files of its own
 * it loads none at all (the built-ins come from their catalog). Never rejects.
 */
export async function prepareHelp(cwd: string): Promise<void> {
  const builtins = BUILTIN_WORKFLOW_CATALOG.map((w) => ({
    name: w.name,
    source: "built-in" as const,
    description: oneLine(w.description),
  }));
  const repoRoot = path.resolve(cwd);
  if (listRepoWorkflowFiles(repoRoot).length === 0) {
    workflows = builtins;
    return;
  }
  try {
    const { listWorkflows } = await import("../workflows/index.js");
    const listed = await listWorkflows({ repoRoot });
    workflows = listed.map((entry) => ({
      name: entry.name,
      source: entry.source,
      description: oneLine(
        entry.workflow?.description ?? `(cannot be loaded: ${entry.error ?? "not a workflow"})`,
      ),
    }));
  } catch {
    workflows = builtins;
  }
}

/** The exit-code section of the help. */
export function exitCodesHelp(): string {
  const width = Math.max(...EXIT_CODES.map((e) => e.code.length));
  return `Exit codes:\n${EXIT_CODES.map((e) => `  ${e.code.padEnd(width)}  ${e.meaning}`).join("\n")}`;
}

/** The workflow section of the help; empty before `prepareHelp` ran. */
export function workflowsHelp(): string {
  if (workflows === null || workflows.length === 0) return "";
  const width = Math.max(...workflows.map((w) => w.name.length));
  const lines = workflows.map(
    (w) => `  ${w.name.padEnd(width)}  ${w.source === "repo" ? "[repo] " : ""}${w.description}`,
  );
  return `Workflows (built-in, and [repo] ones from adws/adw_<name>.ts; sssf list shows more):\n${lines.join("\n")}`;
}

const TOP_EXAMPLES = [
  ["sssf init", "write a roster, prompts and quality suites into this repo"],
  ["sssf doctor --run-suites", "check agents, models, keys and prompts; run each quality suite once"],
  ['sssf run prompt "add a /health endpoint"', "run a workflow on a request"],
  ["sssf run build-test spec.md --json", "one JSON summary on stdout at the end"],
  ["sssf resume 3f9a1c2e", "continue a run at its first unfinished phase"],
  ["sssf sessions", "list runs; sssf phases|events|envelopes <adw_id> shows one"],
  ["sssf completion bash > ~/.local/share/bash-completion/completions/sssf", "shell completion"],
] as const;

const RUN_EXAMPLES = [
  ['sssf run prompt "explain src/index.ts" --agent reviewer', "one agent, one request"],
  ["sssf run simple-sdlc request.md", "the request may be a file"],
  ['sssf run build-test "fix the flaky test" --in-place', "work in the checkout, not a worktree"],
  ['sssf run prompt "now add tests" --adw-id 3f9a1c2e', "join a session: agents resume theirs"],
  ['sssf run build "add slugify" --merge', "fast-forward the base branch when accepted"],
  ['sssf run plan "add auth" --json', "one JSON summary on stdout (docs/json-output.md)"],
] as const;

function examples(rows: readonly (readonly [string, string])[]): string {
  return `Examples:\n${rows.map(([command, what]) => `  ${command}\n      ${what}`).join("\n")}`;
}

const sections = (...parts: string[]) => `\n${parts.filter((p) => p !== "").join("\n\n")}\n`;

/** What the top-level `sssf --help` prints after the command list. */
export function topHelpAfter(): string {
  return sections(examples(TOP_EXAMPLES), workflowsHelp(), exitCodesHelp());
}

/** What `sssf run --help` prints after its options. */
export function runHelpAfter(): string {
  return sections(examples(RUN_EXAMPLES), workflowsHelp(), exitCodesHelp());
}
