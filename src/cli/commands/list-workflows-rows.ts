/**
 * The wire shape of `sssf list --json` (snake_case, stable) and its text rendering, built from the
 * discovered workflows and, when one loaded, the config they are checked against.
 */
import type { SssfConfig } from "../../config/config-types.js";
import { terminalSafe } from "../../util/terminal-text.js";
import type { ListedWorkflow } from "../../workflows/discover.js";

/** One workflow in `sssf list --json`. */
export interface WorkflowRow {
  name: string;
  description: string;
  source: "built-in" | "repo";
  /** Repo-relative path of a repo-local file; null for a built-in. */
  file: string | null;
  overrides_builtin: boolean;
  phases: string[];
  agents: string[];
  /** `"*"` means every configured suite (at least one). */
  suites: string[];
  /** Agents the config's roster lacks; null when no config loaded. */
  missing_agents: string[] | null;
  /** Suites the config's `quality:` lacks (`"*"` when it has none); null when no config loaded. */
  missing_suites: string[] | null;
  /** Why a repo-local file could not be used; null when it loaded. */
  error: string | null;
}

/** The whole `sssf list --json` document. */
export interface WorkflowListing {
  config: { file: string; loaded: boolean; error: string | null };
  workflows: WorkflowRow[];
}

/** One row per listed workflow, checked against `config` when given. Never throws. */
export function workflowRows(listed: readonly ListedWorkflow[], config: SssfConfig | null): WorkflowRow[] {
  const roster = new Set(config?.agents.map((a) => a.name) ?? []);
  const quality = Object.keys(config?.quality ?? {});
  return listed.map((entry) => {
    const workflow = entry.workflow;
    const agents = [...(workflow?.agents ?? [])];
    const suites = [...(workflow?.suites ?? [])];
    return {
      name: entry.name,
      description: workflow?.description ?? "",
      source: entry.source,
      file: entry.file,
      overrides_builtin: entry.overridesBuiltin,
      phases: [...(workflow?.phases ?? [])],
      agents,
      suites,
      missing_agents: config ? agents.filter((a) => !roster.has(a)) : null,
      missing_suites: config
        ? suites.filter((s) => (s === "*" ? quality.length === 0 : !quality.includes(s)))
        : null,
      error: entry.error,
    };
  });
}

function names(values: string[], missing: string[] | null, none: string): string {
  if (values.length === 0) return none;
  return values
    .map((value) => {
      if (value === "*")
        return `every configured suite (*)${missing?.includes("*") ? " (config has none)" : ""}`;
      return missing?.includes(value) ? `${value} (not in config)` : value;
    })
    .join(", ");
}

const oneLine = (text: string) =>
  text
    .split("\n")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join(" ");

/**
 * The text `sssf list` prints: the config line, then one block per workflow. What the repo's files and
 * errors say is made safe for a terminal (`terminalSafe`: controls as visible escapes). Never throws.
 */
export function renderListing(listing: WorkflowListing, repoRoot: string): string {
  const { config } = listing;
  const where = config.file.startsWith(`${repoRoot}/`) ? config.file.slice(repoRoot.length + 1) : config.file;
  const lines = [
    config.loaded
      ? `config: ${where}`
      : `config: not loaded, agents and suites not checked (${oneLine(config.error ?? "")})`,
  ];
  for (const row of listing.workflows) {
    const source =
      row.source === "built-in"
        ? "built-in"
        : `${row.file}${row.overrides_builtin ? " (overrides the built-in)" : ""}`;
    lines.push("", `${row.name}  ${source}`);
    if (row.error !== null) {
      lines.push(`  error: ${row.error}`);
      continue;
    }
    if (row.description) lines.push(`  ${row.description}`);
    lines.push(`  phases: ${row.phases.length > 0 ? row.phases.join(" → ") : "-"}`);
    lines.push(`  agents: ${names(row.agents, row.missing_agents, "-")}`);
    lines.push(`  suites: ${names(row.suites, row.missing_suites, "-")}`);
  }
  return `${terminalSafe(lines.join("\n"), { multiline: true })}\n`;
}
