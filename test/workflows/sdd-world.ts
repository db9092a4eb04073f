/** What the sdd workflow tests share: the change, the Markdown reports, the roster, the waits. */
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ScriptedTurn } from "../../src/testing/index.js";
import type { AgentSpec } from "../helpers/sandbox.js";
import type { WorkflowWorld } from "./workflow-world.js";

export const CHANGE = "add-dark-mode";
export const DIR = `openspec/changes/${CHANGE}`;
export const REQUEST = "Add dark mode";

export interface ReportSpec {
  heading: string;
  status?: "success" | "warning" | "failure";
  summary?: string;
  artifacts: string[];
  next?: string;
  risks?: string[];
}

/** The seed's Markdown result contract, as an agent would write it (with prose before it). */
export function report(spec: ReportSpec): string {
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
export function phaseTurn(file: string, spec: Omit<ReportSpec, "artifacts">, delayMs = 0): ScriptedTurn {
  return {
    delay_ms: delayMs,
    tool_calls: [{ tool: "write", write_file: { path: file, content: `# ${spec.heading}\n\nDetails.\n` } }],
    reply: report({ ...spec, artifacts: [file] }),
  };
}

export const WRITES: Record<string, string[]> = {
  "sdd-explore": [`openspec/changes/*/exploration.md`],
  "sdd-propose": [`openspec/changes/*/proposal.md`],
  "sdd-spec": [`openspec/changes/*/specs/**`],
  "sdd-design": [`openspec/changes/*/design.md`],
  "sdd-tasks": [`openspec/changes/*/tasks.md`],
  "sdd-apply": ["src/**", `openspec/changes/*/tasks.md`],
  "sdd-verify": [`openspec/changes/*/verify-report.md`],
  "sdd-archive": ["openspec/**"],
};

export function roster(overrides: Partial<Record<string, ScriptedTurn[]>> = {}): AgentSpec[] {
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
export function startedSession(w: WorkflowWorld): string {
  if (!existsSync(path.join(w.sb.dir, "adws/adw_data/sssf.db"))) return "";
  try {
    return w.sb.query<{ adw_id: string }>("SELECT adw_id FROM sessions")[0]?.adw_id ?? "";
  } catch {
    return ""; // the run is still creating its tables
  }
}

export const criticalDesign = (): ScriptedTurn[] => [
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
export async function answerWhenAsked(w: WorkflowWorld, verb: string, extra: string[]) {
  let answered: { code: number | null; stdout: string; stderr: string } | undefined;
  let adwId = "";
  for (let i = 0; i < 300 && answered?.code !== 0; i++) {
    await sleep(200);
    adwId = startedSession(w);
    if (adwId !== "") answered = await w.run([verb, adwId, ...extra]);
  }
  return { answered, adwId };
}

/** The phases of run `adwId`, in order. */
export function phaseRowsOf(w: WorkflowWorld | undefined, adwId: string) {
  return (
    w?.sb.query<{ number: number; name: string; status: string; started_at: string; ended_at: string }>(
      "SELECT number, name, status, started_at, ended_at FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    ) ?? []
  );
}
