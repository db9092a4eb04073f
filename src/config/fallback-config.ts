/**
 * `agents[].fallback`: where a send refused by a rate limit or a spent quota goes next. An entry is a
 * model of the agent's own runtime, or `{ agent: <name> }`, another agent of the roster that answers
 * with the same output contract: its user prompt's `## Report` section (the envelope it is asked
 * for, JSON or Markdown) must be the same, or the phase would judge its reply against a contract it
 * was never given. Checked at load time, so a bad entry is one line and exit 2 before any run.
 */
import { readFileSync } from "node:fs";
import type { ConfigProblem } from "../errors/config-error.js";
import type { AgentConfig, FallbackEntry } from "./config-types.js";

/** The wire entries in code form (a string is a model); undefined when the agent has none. */
export function fallbackEntries(
  wire: readonly (string | { agent: string })[] | undefined,
): FallbackEntry[] | undefined {
  if (wire === undefined || wire.length === 0) return undefined;
  return wire.map((entry) => (typeof entry === "string" ? { model: entry } : { agent: entry.agent }));
}

/** The `## Report` section of a user prompt template (to its end), or null when unreadable. */
function reportSection(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const at = text.search(/^## Report\b/m);
  return at === -1 ? "" : text.slice(at).trim();
}

/** How a report section reads, for the problem line: JSON, Markdown or none. */
function contractName(section: string): string {
  if (section === "") return "no ## Report section";
  return /```json|"status"/.test(section) ? "a JSON envelope" : "a Markdown ## Report";
}

/**
 * Every problem of the roster's fallbacks: an unknown agent, an agent naming itself, a fallback agent
 * whose output contract differs. Never throws.
 */
export function fallbackProblems(agents: readonly AgentConfig[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const byName = new Map(agents.map((agent) => [agent.name, agent]));
  agents.forEach((agent, index) => {
    (agent.fallback ?? []).forEach((entry, position) => {
      if (!("agent" in entry)) return;
      const where = `agents[${index}].fallback[${position}].agent`;
      const other = byName.get(entry.agent);
      if (other === undefined) {
        const known = [...byName.keys()].filter((name) => name !== agent.name).join(", ");
        problems.push({
          path: where,
          message: `unknown agent ${JSON.stringify(entry.agent)} (the roster has: ${known || "no other agent"})`,
        });
        return;
      }
      if (other.name === agent.name) {
        problems.push({ path: where, message: `${agent.name} cannot fall back to itself` });
        return;
      }
      const own = reportSection(agent.userPromptPath);
      const theirs = reportSection(other.userPromptPath);
      // An unreadable prompt file is reported on its own (prompt_engineering.user).
      if (own === null || theirs === null || own === theirs) return;
      problems.push({
        path: where,
        message: `fallback agent ${other.name} has a different output contract from ${agent.name} (its user prompt asks for ${contractName(theirs)}, ${agent.name}'s a different one: their ## Report sections differ); name an agent whose ## Report matches`,
      });
    });
  });
  return problems;
}
