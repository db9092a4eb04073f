import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createScriptedAgent, type ScriptedAgent, type ScriptedTurn } from "../../src/testing/index.js";
import { defaultPrompts, type SddAgentName } from "../../src/workflows/prompts/default-prompts.js";
import { SDD_AGENTS } from "../../src/workflows/sdd.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { adwIdFrom, type CliResult, cliPath, collect } from "../helpers/sandbox.js";

// `sssf init --sdd` in a fresh git repo, then the roster re-pointed at scripted exec agents (keeping the
// writes and prompt files init wrote): `sssf run sdd` goes from explore to archive on init's defaults.

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Operator",
  GIT_AUTHOR_EMAIL: "operator@example.test",
  GIT_COMMITTER_NAME: "Operator",
  GIT_COMMITTER_EMAIL: "operator@example.test",
};
const CONFIG = "adws/adw_sssf_config/sssf.config.yaml";
const CHANGE = "add-dark-mode";
const DIR = `openspec/changes/${CHANGE}`;

let repo: string;
let agentsDir: string;
beforeEach(() => {
  repo = mkdtempSync(path.join(tmpdir(), "sssf-init-run-"));
  agentsDir = mkdtempSync(path.join(tmpdir(), "sssf-init-run-agents-"));
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(agentsDir, { recursive: true, force: true });
});

function git(args: string[]): string {
  return execFileSync("git", args, { cwd: repo, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
}

function sssf(args: string[]): Promise<CliResult> {
  return collect(
    spawn(process.execPath, [cliPath, ...args], {
      cwd: repo,
      env: { ...process.env, ...GIT_ENV, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

/** A Markdown result contract report listing `artifacts`. */
function report(heading: string, artifacts: string[], next: string): string {
  return [
    `## ${heading}`,
    "",
    `**Change**: ${CHANGE}`,
    "**Status**: success",
    "",
    "### Summary",
    `${heading} for ${CHANGE}.`,
    "",
    "### Artifacts",
    ...artifacts.map((a) => `- ${a}`),
    "",
    "### Next Recommended",
    next,
    "",
    "### Risks",
    "None.",
  ].join("\n");
}

function writing(file: string, content: string, heading: string, next: string): ScriptedTurn {
  return {
    tool_calls: [{ tool: "write", write_file: { path: file, content } }],
    reply: report(heading, [file], next),
  };
}

const SPEC = "## ADDED Requirements\n\n### Requirement: Theme toggle\n\nThe app SHALL offer a dark theme.\n";

const TURNS: Record<SddAgentName, ScriptedTurn> = {
  "sdd-explore": writing(
    `${DIR}/exploration.md`,
    "# Exploration\n",
    "Exploration Complete",
    "Ready for sdd-propose.",
  ),
  "sdd-propose": writing(
    `${DIR}/proposal.md`,
    "# Proposal\n",
    "Proposal Created",
    "Ready for sdd-spec and sdd-design.",
  ),
  "sdd-spec": writing(`${DIR}/specs/theme/spec.md`, SPEC, "Specs Written", "Ready for sdd-tasks."),
  "sdd-design": writing(`${DIR}/design.md`, "# Design\n", "Design Complete", "Ready for sdd-tasks."),
  "sdd-tasks": writing(
    `${DIR}/tasks.md`,
    "- [ ] 1.1 Add src/theme.js\n",
    "Tasks Created",
    "Ready for sdd-apply.",
  ),
  "sdd-apply": {
    tool_calls: [
      { tool: "write", write_file: { path: "src/theme.js", content: "export const theme = 'dark';\n" } },
      { tool: "write", write_file: { path: `${DIR}/tasks.md`, content: "- [x] 1.1 Add src/theme.js\n" } },
    ],
    reply: report(
      "Implementation Complete",
      ["src/theme.js", `${DIR}/tasks.md`],
      "Ready for sdd-verify: 1/1 tasks.",
    ),
  },
  "sdd-verify": writing(
    `${DIR}/verify-report.md`,
    "# Verify\n\nPASS\n",
    "Verification Report",
    "Ready for sdd-archive.",
  ),
  "sdd-archive": {
    tool_calls: [
      {
        tool: "bash",
        bash: `mkdir -p openspec/specs/theme openspec/changes/archive && cp ${DIR}/specs/theme/spec.md openspec/specs/theme/spec.md && mv ${DIR} openspec/changes/archive/${CHANGE}`,
      },
    ],
    reply: report(
      "Change Archived",
      ["openspec/specs/theme/spec.md", `openspec/changes/archive/${CHANGE}/proposal.md`],
      "Done: add-dark-mode archived; start the next change with `sssf run sdd`.",
    ),
  },
};

describe("a repo set up with sssf init --sdd", () => {
  it("runs sdd from explore to archive with init's roster and prompts", async () => {
    git(["init", "-q", "-b", "main"]);
    const init = await sssf(["init", "--sdd"]);
    expect(init.code).toBe(0);

    // Re-point every agent at a scripted exec agent; the writes and prompt files stay init's.
    const config = parse(readFileSync(path.join(repo, CONFIG), "utf8")) as {
      agents: Record<string, unknown>[];
    };
    const agents = new Map<string, ScriptedAgent>();
    for (const entry of config.agents) {
      const name = String(entry.name);
      const turns = (SDD_AGENTS as readonly string[]).includes(name) ? [TURNS[name as SddAgentName]] : [];
      const agent = createScriptedAgent({ dir: agentsDir, name, turns });
      agents.set(name, agent);
      Object.assign(entry, agent.rosterEntry);
    }
    writeFileSync(path.join(repo, CONFIG), JSON.stringify(config, null, 2));
    git(["add", "-A"]);
    git(["commit", "-q", "-m", "sssf init --sdd"]);

    const result = await sssf(["run", "sdd", "Add dark mode", "--in-place"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`archived ${CHANGE}`);
    expect(adwIdFrom(result.stdout)).toMatch(/^\w+$/);

    // Each agent got init's system.md and user.md, with the Markdown Report and the change in the prompt.
    for (const name of SDD_AGENTS) {
      const [send] = agents.get(name)?.sends() ?? [];
      expect(send?.system_prompt).toBe(defaultPrompts(name).system);
      expect(send?.prompt).toContain(defaultPrompts(name).user.split("\n")[0]);
      expect(send?.prompt).toContain(`Change: ${CHANGE}`);
      expect(send?.prompt).toContain("**Status**: success");
    }
    expect(existsSync(path.join(repo, "openspec/specs/theme/spec.md"))).toBe(true);
    expect(existsSync(path.join(repo, `openspec/changes/archive/${CHANGE}/tasks.md`))).toBe(true);
    expect(existsSync(path.join(repo, DIR))).toBe(false);
    expect(git(["log", "--format=%s", "-1"])).toContain(CHANGE);
    expect(git(["status", "--porcelain"]).trim()).toBe("");

    // Apply's report was checked against what it changed, in place (sssf's own files left out).
    const db = openRawSqlite(path.join(repo, "adws/adw_data/sssf.db"), { readonly: true });
    try {
      const gates = db
        .prepare("SELECT ok, checks FROM gate_results WHERE gate = 'artifactsCoverChanges'")
        .all() as { ok: number; checks: string }[];
      expect(gates.map((gate) => [gate.ok, JSON.parse(gate.checks)])).toEqual([
        [
          1,
          [
            { item: `${DIR}/tasks.md`, ok: true, note: "modified, listed" },
            { item: "src/theme.js", ok: true, note: "added, listed" },
          ],
        ],
      ]);
    } finally {
      db.close();
    }
  });
});
