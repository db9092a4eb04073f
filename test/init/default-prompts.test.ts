import { describe, expect, it } from "vitest";
import { renderPrompt } from "../../src/engine/prompts.js";
import { reportSection } from "../../src/envelope/report-section.js";
import {
  BuildOutput,
  DocumentOutput,
  PlanOutput,
  ReviewOutput,
  ScoutOutput,
} from "../../src/envelope/schemas.js";
import {
  DEFAULT_AGENT_NAMES,
  defaultAgents,
  defaultPrompts,
  isDefaultAgentName,
} from "../../src/workflows/prompts/default-prompts.js";

const TYPES = {
  planner: PlanOutput,
  builder: BuildOutput,
  scout: ScoutOutput,
  reviewer: ReviewOutput,
  documenter: DocumentOutput,
} as const;

/** The contract phrases each built-in workflow relies on, per agent. */
const CONTRACT = {
  planner: ["specs/", "kebab-case", "`artifacts`", "`commit_message`"],
  builder: ["`output_tail`", "`blocking`", "`changed_files`", "real diff", "`commit_message`"],
  scout: ["`findings`", "{{context_handoff_dir}}/scout_findings.md", "`artifacts`"],
  reviewer: [
    "`diff_path`",
    "`files`",
    "`findings`",
    "`requirement`",
    "`met`",
    "`evidence`",
    "`approved`",
    "`blocking`",
  ],
  documenter: ["docs/", "README.md", "`document_path`", "`documented_files`", "`commit_message`"],
} as const;

describe("default prompts", () => {
  it("cover the roster in order, with the output type each built-in workflow asks for", () => {
    expect(defaultAgents().map((a) => [a.name, a.outputType.name])).toEqual(
      DEFAULT_AGENT_NAMES.map((name) => [name, TYPES[name].name]),
    );
    expect(isDefaultAgentName("builder")).toBe(true);
    expect(isDefaultAgentName("assistant")).toBe(false);
  });

  for (const agent of DEFAULT_AGENT_NAMES) {
    it(`${agent}: static system.md, user.md with the variables, the task and the generated Report`, () => {
      const { system, user } = defaultPrompts(agent);
      expect(system).toMatch(/^# \w+\n\n## Purpose\n\n.+\n\n## Instructions\n\n- /);
      expect(system).not.toMatch(/\{\{/);
      const sections = [
        "### prompt\n\n{{prompt}}",
        "### previous_envelope\n\n{{previous_envelope}}",
        "### context_handoff_dir\n\n{{context_handoff_dir}}",
        "## Task\n\n",
        "## Report\n",
      ];
      const positions = sections.map((section) => user.indexOf(section));
      expect(positions.every((p) => p > 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(user.endsWith(`${reportSection(TYPES[agent])}\n`)).toBe(true);
      for (const phrase of CONTRACT[agent]) expect(`${system}\n${user}`).toContain(phrase);
    });
  }

  it("render with the engine's placeholders, leaving none behind", () => {
    for (const agent of DEFAULT_AGENT_NAMES) {
      const rendered = renderPrompt(defaultPrompts(agent).user, {
        prompt: "add a /health endpoint",
        previous_envelope: "(none)",
        context_handoff_dir: "/repo/adws/adw_data/sessions/abcd1234/context_handoff",
        adw_id: "abcd1234",
        output_schema: "{}",
      });
      expect(rendered).not.toMatch(/\{\{/);
      expect(rendered).toContain("add a /health endpoint");
    }
  });

  it("are deterministic", () => {
    expect(defaultPrompts("builder")).toEqual(defaultPrompts("builder"));
  });
});
