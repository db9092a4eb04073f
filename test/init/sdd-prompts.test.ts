import { describe, expect, it } from "vitest";
import { compileBoundary } from "../../src/boundary/write-boundary-rules.js";
import { renderPrompt } from "../../src/engine/prompts.js";
import { parseMarkdownResult } from "../../src/envelope/markdown-parse.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import { reportSection } from "../../src/envelope/report-section.js";
import {
  defaultAgents,
  defaultPrompts,
  isDefaultAgentName,
  isSddAgentName,
  type SddAgentName,
  sddAgents,
} from "../../src/workflows/prompts/default-prompts.js";
import { SDD_AGENTS } from "../../src/workflows/sdd.js";

const CHANGE = "openspec/changes/add-dark-mode";

/** Per agent: its `writes`, the heading it must report under, and a file the workflow asks it to write. */
const EXPECTED: Record<SddAgentName, { writes: string[]; heading: string; writesFile: string }> = {
  "sdd-explore": {
    writes: ["openspec/changes/*/exploration.md"],
    heading: "Exploration Complete",
    writesFile: `${CHANGE}/exploration.md`,
  },
  "sdd-propose": {
    writes: ["openspec/changes/*/proposal.md"],
    heading: "Proposal Created",
    writesFile: `${CHANGE}/proposal.md`,
  },
  "sdd-spec": {
    writes: ["openspec/changes/*/specs/**"],
    heading: "Specs Written",
    writesFile: `${CHANGE}/specs/theme-settings/spec.md`,
  },
  "sdd-design": {
    writes: ["openspec/changes/*/design.md"],
    heading: "Design Complete",
    writesFile: `${CHANGE}/design.md`,
  },
  "sdd-tasks": {
    writes: ["openspec/changes/*/tasks.md"],
    heading: "Tasks Created",
    writesFile: `${CHANGE}/tasks.md`,
  },
  "sdd-apply": { writes: ["**"], heading: "Implementation Complete", writesFile: "src/theme/toggle.ts" },
  "sdd-verify": {
    writes: ["openspec/changes/*/verify-report.md"],
    heading: "Verification Report",
    writesFile: `${CHANGE}/verify-report.md`,
  },
  "sdd-archive": {
    writes: ["openspec/**"],
    heading: "Change Archived",
    writesFile: "openspec/changes/archive/add-dark-mode/proposal.md",
  },
};

/** What each phase's system.md must ask for, beyond the shared contract. */
const JOB: Record<SddAgentName, string[]> = {
  "sdd-explore": ["Read-only", "exploration.md", "## Approaches"],
  "sdd-propose": ["## Intent", "### In Scope", "### Out of Scope", "## Approach", "## Rollback Plan"],
  "sdd-spec": [
    "## ADDED Requirements",
    "### Requirement:",
    "#### Scenario:",
    "**GIVEN**",
    "**WHEN**",
    "**THEN**",
  ],
  "sdd-design": ["## Decisions", "## File Changes", "## Interfaces and Data Flow", "do not wait"],
  "sdd-tasks": ["- [ ] 1.1", "(scenario:", "unticked"],
  "sdd-apply": ["- [x]", "tasks.md", "Never weaken, skip or delete tests"],
  "sdd-verify": [
    "PASS",
    "FAIL",
    "UNTESTED",
    "verify-report.md",
    "fix nothing",
    "stops the run before the archive",
  ],
  "sdd-archive": [
    "openspec/specs/<capability>/spec.md",
    "MODIFIED",
    "REMOVED",
    "openspec/changes/archive/<change>/",
  ],
};

describe("sdd agent prompts", () => {
  it("cover the sdd workflow's agents in its order, answering in the Markdown contract with the documented writes", () => {
    expect(sddAgents().map((a) => a.name)).toEqual([...SDD_AGENTS]);
    for (const agent of sddAgents()) {
      expect(agent.format).toBe("markdown");
      expect(agent.outputType).toBe(MarkdownResult);
      expect(agent.writes).toEqual(EXPECTED[agent.name as SddAgentName].writes);
      expect(agent.purpose).not.toMatch(/\n/);
    }
    expect(defaultAgents().every((agent) => agent.format === "json")).toBe(true);
    expect(isSddAgentName("sdd-verify")).toBe(true);
    expect(isSddAgentName("planner")).toBe(false);
    expect(isDefaultAgentName("sdd-verify")).toBe(false);
  });

  it("let each agent write the file the workflow asks it for, and no source file but sdd-apply", () => {
    for (const agent of sddAgents()) {
      const judge = compileBoundary({ writes: agent.writes, protectedFiles: [] });
      const expected = EXPECTED[agent.name as SddAgentName];
      expect(judge(expected.writesFile), `${agent.name}: ${expected.writesFile}`).toBeNull();
      if (agent.name !== "sdd-apply") expect(judge("src/index.ts")).toBe("outside_writes");
    }
  });

  for (const name of SDD_AGENTS) {
    it(`${name}: system.md with Purpose, Instructions and the result contract; user.md with the Markdown Report`, () => {
      const { system, user } = defaultPrompts(name);
      const { heading } = EXPECTED[name];
      expect(system).toMatch(/^# SDD \w+\n\n## Purpose\n\n.+\n\n## Instructions\n\n- /);
      expect(system).not.toMatch(/\{\{/);
      const contract = system.slice(system.indexOf("## Result contract"));
      expect(system.indexOf("## Result contract")).toBeGreaterThan(system.indexOf("## Instructions"));
      for (const phrase of [
        `headed \`## ${heading}\``,
        "`success`:",
        "`warning`:",
        "`failure`:",
        "Never report `success` with a CRITICAL risk.",
        "`**CRITICAL**:`",
        "`**WARNING**:`",
        "`**SUGGESTION**:`",
        "ALL the files",
        'never just "continue"',
      ]) {
        expect(contract).toContain(phrase);
      }
      for (const phrase of JOB[name]) expect(system).toContain(phrase);

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
      expect(user.endsWith(`${reportSection(MarkdownResult, "markdown")}\n`)).toBe(true);
      expect(user).toContain(`headed \`## ${heading}\``);
      const report = user.slice(user.indexOf("## Report"));
      for (const part of [
        /^## Proposal Created$/m,
        /^\*\*Status\*\*: success$/m,
        /^### Summary$/m,
        /^### Artifacts$/m,
        /^### Next Recommended$/m,
        /^### Risks$/m,
      ]) {
        expect(report).toMatch(part);
      }
    });
  }

  it("show an example report the parser reads back as the MarkdownResult example", () => {
    for (const name of SDD_AGENTS) {
      const parsed = parseMarkdownResult(defaultPrompts(name).user);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(parsed.envelope).toEqual(MarkdownResult.schema.parse(MarkdownResult.example));
    }
  });

  it("render with the engine's placeholders, leaving none behind, and are deterministic", () => {
    for (const name of SDD_AGENTS) {
      const rendered = renderPrompt(defaultPrompts(name).user, {
        prompt: "Add dark mode\n\nChange: add-dark-mode\nArtifacts folder: openspec/changes/add-dark-mode/",
        previous_envelope: "(none)",
        context_handoff_dir: "/repo/adws/adw_data/sessions/abcd1234/context_handoff",
        adw_id: "abcd1234",
        output_schema: "",
      });
      expect(rendered).not.toMatch(/\{\{/);
      expect(rendered).toContain("Change: add-dark-mode");
      expect(defaultPrompts(name)).toEqual(defaultPrompts(name));
    }
  });
});
