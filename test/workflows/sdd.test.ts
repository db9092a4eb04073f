import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdownResult } from "../../src/envelope/markdown-render.js";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { type AgentSpec, adwIdFrom, collect } from "../helpers/sandbox.js";
import { GIT_ENV, WorkflowWorld } from "./workflow-world.js";

let world: WorkflowWorld | undefined;
afterEach(() => world?.cleanup());

const CHANGE = "add-dark-mode";
const DIR = `openspec/changes/${CHANGE}`;
const REQUEST = "Add dark mode";

interface ReportSpec {
  heading: string;
  status?: "success" | "warning" | "failure";
  summary?: string;
  artifacts: string[];
  next?: string;
  risks?: string[];
}

/** The seed's Markdown result contract, as an agent would write it (with prose before it). */
function report(spec: ReportSpec): string {
  return [
    "I have finished this phase. Here is my result:",
    "",
    `## ${spec.heading}`,
    "",
    `**Change**: ${CHANGE}`,
    `**Status**: ${spec.status ?? "success"}`,
    "",
    "### Summary",
    spec.summary ?? `${spec.heading} for ${CHANGE}.`,
    "",
    "### Artifacts",
    ...spec.artifacts.map((a) => `- ${a}`),
    "",
    "### Next Recommended",
    spec.next ?? "Ready for the next sdd phase of add-dark-mode (see the artifacts).",
    "",
    "### Risks",
    ...(spec.risks?.length ? spec.risks.map((r) => `- ${r}`) : ["None."]),
  ].join("\n");
}

/** An agent turn writing `file` and answering with a report listing it. */
function phaseTurn(file: string, spec: Omit<ReportSpec, "artifacts">, delayMs = 0): ScriptedTurn {
  return {
    delay_ms: delayMs,
    tool_calls: [{ tool: "write", write_file: { path: file, content: `# ${spec.heading}\n\nDetails.\n` } }],
    reply: report({ ...spec, artifacts: [file] }),
  };
}

const WRITES: Record<string, string[]> = {
  "sdd-explore": [`openspec/changes/*/exploration.md`],
  "sdd-propose": [`openspec/changes/*/proposal.md`],
  "sdd-spec": [`openspec/changes/*/specs/**`],
  "sdd-design": [`openspec/changes/*/design.md`],
  "sdd-tasks": [`openspec/changes/*/tasks.md`],
  "sdd-apply": ["src/**", `openspec/changes/*/tasks.md`],
  "sdd-verify": [`openspec/changes/*/verify-report.md`],
  "sdd-archive": ["openspec/**"],
};

function roster(overrides: Partial<Record<string, ScriptedTurn[]>> = {}): AgentSpec[] {
  const turns: Record<string, ScriptedTurn[]> = {
    "sdd-explore": [phaseTurn(`${DIR}/exploration.md`, { heading: "Exploration Complete" })],
    "sdd-propose": [phaseTurn(`${DIR}/proposal.md`, { heading: "Proposal Created" })],
    "sdd-spec": [phaseTurn(`${DIR}/specs/settings/spec.md`, { heading: "Specs Written" }, 800)],
    "sdd-design": [phaseTurn(`${DIR}/design.md`, { heading: "Design Complete" }, 800)],
    "sdd-tasks": [phaseTurn(`${DIR}/tasks.md`, { heading: "Tasks Created" })],
    "sdd-apply": [phaseTurn("src/theme.js", { heading: "Implementation Complete" })],
    "sdd-verify": [phaseTurn(`${DIR}/verify-report.md`, { heading: "Verification Report" })],
    "sdd-archive": [
      {
        tool_calls: [
          {
            tool: "bash",
            bash: `mkdir -p openspec/changes/archive && mv ${DIR} openspec/changes/archive/${CHANGE}`,
          },
        ],
        reply: report({
          heading: "Change Archived",
          artifacts: [`openspec/changes/archive/${CHANGE}/proposal.md`],
          next: "Done: the change is archived; start a new change with sdd-explore.",
        }),
      },
    ],
    ...overrides,
  };
  return Object.entries(turns).map(([name, t]) => ({
    name,
    turns: t ?? [],
    extra: { writes: WRITES[name] },
  }));
}

/** The adw_id of the run once its database has a session row; "" before (the db may not exist yet). */
function startedSession(w: WorkflowWorld): string {
  if (!existsSync(path.join(w.sb.dir, "adws/adw_data/sssf.db"))) return "";
  try {
    return w.sb.query<{ adw_id: string }>("SELECT adw_id FROM sessions")[0]?.adw_id ?? "";
  } catch {
    return ""; // the run is still creating its tables
  }
}

function phaseRows(adwId: string) {
  return (
    world?.sb.query<{ number: number; name: string; status: string; started_at: string; ended_at: string }>(
      "SELECT number, name, status, started_at, ended_at FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    ) ?? []
  );
}

const criticalDesign = (): ScriptedTurn[] => [
  phaseTurn(
    `${DIR}/design.md`,
    {
      heading: "Design Complete",
      status: "warning",
      next: "Confirm the localStorage fallback decision in design.md, then run sdd-tasks.",
      risks: ["**CRITICAL**: localStorage may be unavailable in private mode"],
    },
    800,
  ),
];

/** Retries `sssf <verb> <id> …` until the run has a phase waiting (the command exits 0). */
async function answerWhenAsked(w: WorkflowWorld, verb: string, extra: string[]) {
  let answered: { code: number | null; stdout: string; stderr: string } | undefined;
  let adwId = "";
  for (let i = 0; i < 300 && answered?.code !== 0; i++) {
    await sleep(200);
    adwId = startedSession(w);
    if (adwId !== "") answered = await w.run([verb, adwId, ...extra]);
  }
  return { answered, adwId };
}

describe("sdd", () => {
  it("runs explore → propose → spec ∥ design → tasks → apply → verify → archive and commits once", async () => {
    world = new WorkflowWorld({ agents: roster() });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`archived ${CHANGE}`);
    const adwId = adwIdFrom(result.stdout);
    const phases = phaseRows(adwId);
    expect(phases.map((p) => `${p.name}:${p.status}`)).toEqual([
      "request:success",
      "explore:success",
      "propose:success",
      "spec:success",
      "design:success",
      "tasks:success",
      "apply:success",
      "verify:success",
      "archive:success",
      "commit:success",
    ]);
    // Spec and design overlap in time.
    const spec = phases.find((p) => p.name === "spec");
    const design = phases.find((p) => p.name === "design");
    expect(spec && design).toBeTruthy();
    if (spec && design) {
      expect(Date.parse(spec.started_at)).toBeLessThan(Date.parse(design.ended_at));
      expect(Date.parse(design.started_at)).toBeLessThan(Date.parse(spec.ended_at));
    }
    const envelopes = world.sb.query<{ output_type: string; valid: number }>(
      "SELECT output_type, valid FROM envelopes WHERE adw_id = ?",
      adwId,
    );
    expect(envelopes).toHaveLength(8);
    expect(envelopes.every((e) => e.output_type === "MarkdownResult" && e.valid === 1)).toBe(true);
    expect(world.commits(adwId)).toEqual([`sssf(${adwId}): ${CHANGE}: Change Archived for ${CHANGE}.`]);
    const files = world.commitFiles(adwId, 0);
    expect(files).toContain(`openspec/changes/archive/${CHANGE}/proposal.md`);
    expect(files).toContain("src/theme.js");
  });

  it("stops on a CRITICAL risk from verify: nothing is archived or committed", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-verify": [
          phaseTurn(`${DIR}/verify-report.md`, {
            heading: "Verification Report",
            status: "warning",
            summary: "2 of 5 scenarios are untested.",
            next: "Fix the failing toggle test in src/theme.js, then re-verify. Do NOT archive.",
            risks: [
              "**CRITICAL**: Test 'persists theme choice' expects 'dark' but got 'light'",
              "**WARNING**: Coverage is 67%",
            ],
          }),
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stdout).toContain("CRITICAL");
    const adwId = adwIdFrom(result.stdout);
    const names = phaseRows(adwId).map((p) => p.name);
    expect(names).toContain("verify");
    expect(names).not.toContain("archive");
    expect(world.commits(adwId)).toEqual([]);
    expect(world.sb.agent("sdd-archive").sends()).toEqual([]);
  });

  it("asks the engineer on a CRITICAL design risk, waits, and goes on after sssf approve", async () => {
    world = new WorkflowWorld({ agents: roster({ "sdd-design": criticalDesign() }) });
    const child = world.sb.start(["run", "sdd", REQUEST], GIT_ENV);
    const done = collect(child);
    const { answered: approved, adwId } = await answerWhenAsked(world, "approve", [
      "--reason",
      "fallback accepted",
    ]);
    expect(approved?.code).toBe(0);
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("sssf approve");
    const names = phaseRows(adwId).map((p) => `${p.name}:${p.status}`);
    expect(names).toContain("approve-design:success");
    expect(names.at(-1)).toBe("commit:success");
    const answered = world.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND name LIKE '%approved%'",
      adwId,
    );
    expect(answered.length).toBeGreaterThan(0);
    expect(result.stdout).toContain("CRITICAL: localStorage may be unavailable in private mode");
  });

  it("stops when the engineer rejects, with the reason and who gave it", async () => {
    world = new WorkflowWorld({ agents: roster({ "sdd-design": criticalDesign() }) });
    const done = collect(world.sb.start(["run", "sdd", REQUEST], GIT_ENV));
    const { answered, adwId } = await answerWhenAsked(world, "reject", [
      "--reason",
      "design a fallback first",
    ]);
    expect(answered?.code).toBe(0);
    const result = await done;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("design: rejected by ");
    expect(result.stdout).toContain("design a fallback first");
    const names = phaseRows(adwId).map((p) => p.name);
    expect(names).not.toContain("tasks");
    expect(world.commits(adwId)).toEqual([]);
  });

  it("a warning proceeds and its risks reach the final banner", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-propose": [
          phaseTurn(`${DIR}/proposal.md`, {
            heading: "Proposal Created",
            status: "warning",
            risks: ["**WARNING**: the settings page has no tests yet"],
          }),
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("WARNING: the settings page has no tests yet");
  });
});

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
