/**
 * What `sssf init --sdd` says about the roster when the config already exists: sssf never edits the
 * user's file, so it names the sdd agents the roster lacks and prints the YAML to add by hand.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { DefaultAgentSpec } from "../../workflows/prompts/default-prompts.js";
import { rosterLines, SDD_ROSTER_COMMENT } from "./init-config.js";

/**
 * The agent names of the roster in `<repoRoot>/<configPath>`, or null when the file cannot be read or
 * parsed, or has no `agents:` list (then nothing is known to be there). Never throws.
 */
export function rosterNames(repoRoot: string, configPath: string): Set<string> | null {
  try {
    const document: unknown = parse(readFileSync(path.join(repoRoot, configPath), "utf8"));
    const agents = (document as { agents?: unknown } | null)?.agents;
    if (!Array.isArray(agents)) return null;
    const names = agents
      .map((entry) => (entry as { name?: unknown } | null)?.name)
      .filter((name): name is string => typeof name === "string");
    return new Set(names);
  } catch {
    return null;
  }
}

/**
 * The lines `sssf init --sdd` prints after it left an existing config alone: that the sdd agents the
 * roster lacks must be added by hand, and the YAML entries to paste under `agents:` (indented as they
 * go in the file). When every sdd agent is already there it says so in one line. Never throws.
 */
export function sddSnippetLines(
  repoRoot: string,
  configPath: string,
  sddAgents: readonly DefaultAgentSpec[],
): string[] {
  const present = rosterNames(repoRoot, configPath);
  const missing = sddAgents.filter((agent) => !present?.has(agent.name));
  if (missing.length === 0)
    return [`sdd agents: all ${sddAgents.length} already in the roster of ${configPath}`];
  const which =
    missing.length === sddAgents.length
      ? `the ${missing.length} sdd agents`
      : `${missing.length} of the ${sddAgents.length} sdd agents (${missing.map((a) => a.name).join(", ")})`;
  return [
    `sdd agents: ${configPath} already exists and sssf never edits it:`,
    `  add ${which} by hand, under agents:, as these lines:`,
    "",
    SDD_ROSTER_COMMENT,
    ...rosterLines(missing),
  ];
}
