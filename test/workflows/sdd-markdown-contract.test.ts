import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdownResult } from "../../src/envelope/markdown-render.js";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { adwIdFrom } from "../helpers/sandbox.js";
import { CHANGE, DIR, phaseRowsOf, phaseTurn, REQUEST, report, roster } from "./sdd-world.js";
import { WorkflowWorld } from "./workflow-world.js";

let world: WorkflowWorld | undefined;
afterEach(() => world?.cleanup());
const phaseRows = (adwId: string) => phaseRowsOf(world, adwId);

/** A reply shaped as Agent Teams Lite's skills return it: the phase's own report, then the bold envelope. */
function atlReply(heading: string, artifacts: string[], next: string): string {
  return [
    `## ${heading}`,
    "",
    `**Change**: ${CHANGE}`,
    `**Location**: \`${DIR}/\` (openspec/hybrid)`,
    "",
    "### Summary",
    `- **Intent**: ${heading.toLowerCase()} for dark mode`,
    "- **Scope**: 3 deliverables in, 1 item deferred",
    "- **Approach**: CSS variables",
    "- **Risk Level**: Low",
    "",
    "### Next Step",
    `Ready for ${next}.`,
    "",
    "**Status**: success",
    `**Summary**: ${heading} for \`${CHANGE}\`. Nothing is left open.`,
    `**Artifacts**: ${artifacts.map((a) => `\`${a}\``).join(" | ")}`,
    `**Next**: ${next}`,
    "**Risks**: None",
    "**Skill Resolution**: none — no registry found",
  ].join("\n");
}

function atlTurn(file: string, heading: string, next: string, delayMs = 0): ScriptedTurn {
  return {
    delay_ms: delayMs,
    tool_calls: [{ tool: "write", write_file: { path: file, content: `# ${heading}\n` } }],
    reply: atlReply(heading, [file], next),
  };
}

function gateRows(adwId: string, gate: string) {
  return (
    world?.sb.query<{ ok: number; violations: string }>(
      "SELECT g.ok, g.violations FROM gate_results g JOIN envelopes e ON e.id = g.envelope_id WHERE g.adw_id = ? AND g.gate = ? ORDER BY e.attempt",
      adwId,
      gate,
    ) ?? []
  );
}

function decisionEvents(adwId: string): string[] {
  return (
    world?.sb
      .query<{ name: string }>(
        "SELECT name FROM events WHERE adw_id = ? AND name LIKE 'decision: %' ORDER BY started_at",
        adwId,
      )
      .map((e) => e.name) ?? []
  );
}

describe("sdd enforces the whole Markdown contract", () => {
  it("apply must list every file it changed: an unlisted change goes back into the same session", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-apply": [
          {
            tool_calls: [
              {
                tool: "write",
                write_file: { path: "src/theme.js", content: "export const theme = 'dark';\n" },
              },
              { tool: "write", write_file: { path: "src/theme.css", content: ":root { --bg: #000; }\n" } },
            ],
            reply: report({ heading: "Implementation Complete", artifacts: ["src/theme.js"] }),
          },
          {
            reply: report({
              heading: "Implementation Complete",
              artifacts: ["src/theme.js", "src/theme.css"],
            }),
          },
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const sends = world.sb.agent("sdd-apply").sends();
    expect(sends.map((send) => [send.session_id, send.resume])).toEqual([
      [sends[0]?.session_id, false],
      [sends[0]?.session_id, true],
    ]);
    expect(sends[1]?.prompt).toContain("Gate `artifactsCoverChanges` failed:");
    expect(sends[1]?.prompt).toContain(
      "- src/theme.css: added but not in Artifacts: list it (or a folder holding it) under ### Artifacts",
    );
    expect(gateRows(adwId, "artifactsCoverChanges").map((row) => row.ok)).toEqual([0, 1]);
    expect(world.commitFiles(adwId, 0)).toEqual(expect.arrayContaining(["src/theme.css", "src/theme.js"]));
  });

  it("apply that never lists its change fails, and nothing after it runs", async () => {
    const unlisted: ScriptedTurn = {
      tool_calls: [{ tool: "write", write_file: { path: "src/theme.css", content: ":root {}\n" } }],
      reply: report({ heading: "Implementation Complete", artifacts: ["None."] }),
      repeat: true,
    };
    world = new WorkflowWorld({ agents: roster({ "sdd-apply": [unlisted] }) });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(1);
    const adwId = adwIdFrom(result.stdout);
    expect(phaseRows(adwId).find((p) => p.name === "apply")?.status).toBe("fail");
    expect(gateRows(adwId, "artifactsCoverChanges").every((row) => row.ok === 0)).toBe(true);
    expect(world.sb.agent("sdd-verify").sends()).toEqual([]);
    expect(world.commits(adwId)).toEqual([]);
  });

  it("a blocked Next Recommended asks the engineer; --yes goes on, and the decision is traced", async () => {
    const next = "Blocked: the design leaves the storage backend open; resolve it before sdd-apply.";
    world = new WorkflowWorld({
      agents: roster({ "sdd-tasks": [phaseTurn(`${DIR}/tasks.md`, { heading: "Tasks Created", next })] }),
    });
    const result = await world.run(["run", "sdd", REQUEST, "--yes"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const names = phaseRows(adwId).map((p) => `${p.name}:${p.status}`);
    expect(names).toContain("approve-tasks:success");
    expect(names.indexOf("approve-tasks:success")).toBeLessThan(names.indexOf("apply:success"));
    expect(decisionEvents(adwId)).toContain(`decision: ask (Next Recommended says it is blocked: ${next})`);
  });

  it("a verify that says to stop stops before the archive, without asking", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-verify": [
          phaseTurn(`${DIR}/verify-report.md`, {
            heading: "Verification Report",
            next: "Stop here: the e2e suite needs a browser this machine lacks; do not archive yet.",
          }),
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("verify: Next Recommended says to stop: Stop here");
    const adwId = adwIdFrom(result.stdout);
    const names = phaseRows(adwId).map((p) => p.name);
    expect(names).not.toContain("approve-verify");
    expect(names).not.toContain("archive");
    expect(world.sb.agent("sdd-archive").sends()).toEqual([]);
  });

  it("a real next step that mentions stopping proceeds", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-tasks": [
          phaseTurn(`${DIR}/tasks.md`, {
            heading: "Tasks Created",
            next: "Ready for sdd-apply: implement the stop-on-error toggle first; stop if the design turns out wrong.",
          }),
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(0);
    expect(phaseRows(adwIdFrom(result.stdout)).map((p) => p.name)).not.toContain("approve-tasks");
  });

  it("a Summary of more than 3 sentences goes back into the same session", async () => {
    const long = "Read the code. Found the palette. Compared two approaches. Recommend CSS variables.";
    world = new WorkflowWorld({
      agents: roster({
        "sdd-explore": [
          phaseTurn(`${DIR}/exploration.md`, { heading: "Exploration Complete", summary: long }),
          { reply: report({ heading: "Exploration Complete", artifacts: [`${DIR}/exploration.md`] }) },
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(0);
    const sends = world.sb.agent("sdd-explore").sends();
    expect(sends).toHaveLength(2);
    expect(sends[1]?.resume).toBe(true);
    expect(sends[1]?.prompt).toContain("- `### Summary`: has 4 sentences: write 1-3 sentences");
  });

  it("Agent Teams Lite's report shape runs the whole workflow without a correction", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-explore": [atlTurn(`${DIR}/exploration.md`, "Exploration Complete", "sdd-propose")],
        "sdd-propose": [atlTurn(`${DIR}/proposal.md`, "Proposal Created", "sdd-spec or sdd-design")],
        "sdd-spec": [atlTurn(`${DIR}/specs/settings/spec.md`, "Specs Created", "sdd-tasks", 800)],
        "sdd-design": [atlTurn(`${DIR}/design.md`, "Design Created", "sdd-tasks", 800)],
        "sdd-tasks": [atlTurn(`${DIR}/tasks.md`, "Tasks Created", "sdd-apply")],
        "sdd-apply": [atlTurn("src/theme.js", "Implementation Progress", "sdd-verify")],
        "sdd-verify": [atlTurn(`${DIR}/verify-report.md`, "Verification Report", "sdd-archive")],
        "sdd-archive": [
          {
            tool_calls: [
              {
                tool: "bash",
                bash: `mkdir -p openspec/changes/archive && mv ${DIR} openspec/changes/archive/${CHANGE}`,
              },
            ],
            reply: atlReply(
              "Change Archived",
              [`openspec/changes/archive/${CHANGE}/`],
              // As Agent Teams Lite's archive says it: nothing comes after the last phase.
              "none",
            ),
          },
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const envelopes = world.sb.query<{
      agent: string;
      attempt: number;
      valid: number;
      envelope_json: string;
    }>(
      "SELECT agent, attempt, valid, envelope_json FROM envelopes WHERE adw_id = ? ORDER BY created_at",
      adwId,
    );
    expect(envelopes).toHaveLength(8);
    expect(envelopes.every((e) => e.attempt === 1 && e.valid === 1)).toBe(true);
    const proposal = envelopes.find((e) => e.agent === "sdd-propose");
    expect(renderMarkdownResult(JSON.parse(proposal?.envelope_json ?? "{}"))).toBe(
      [
        "## Proposal Created",
        "",
        `**Change**: ${CHANGE}`,
        "**Status**: success",
        "",
        "### Summary",
        `Proposal Created for \`${CHANGE}\`. Nothing is left open.`,
        "",
        "### Artifacts",
        `- ${DIR}/proposal.md`,
        "",
        "### Next Recommended",
        "sdd-spec or sdd-design",
        "",
        "### Risks",
        "None.",
        "",
      ].join("\n"),
    );
  });
});
