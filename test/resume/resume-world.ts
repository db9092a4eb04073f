import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { type CliResult, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { GIT_ENV, git } from "../worktree/worktree-world.js";

/**
 * A repo-local workflow of five phases: two agent phases, a commit, a suite and a third agent. Each
 * agent is told what the one before it said, so a replayed phase must hand on the same envelope.
 */
/** The workflow `three` (resume and cluster tests): two agents, a commit, a suite, a third agent. */
export const THREE = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "three",
  description: "Three agents, a commit and a suite",
  agents: ["first", "second", "third"],
  suites: ["test"],
  async run(run, request) {
    const one = await run.agent("one", { owner: "first", description: "First" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const two = await run.agent("two", { owner: "second", description: "Second" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "continue: " + one.summary }));
    const made = await run.code("commit", { owner: "git", description: "Commit" }, (phase) =>
      phase.commit("Resume test: " + two.summary));
    const suite = await run.code("test", { owner: "quality", description: "Test" }, (phase) => phase.runSuite("test"));
    const three = await run.agent("three", { owner: "third", description: "Third" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "review " + (made ? made.commit : "nothing") + " " + suite.summary }));
    return run.finish({ accepted: three.status === "success", reason: three.summary });
  },
});
`;

/** A user prompt that shows the request and the envelope handed on. */
export const USER = "# Task\n\n{{prompt}}\n\n## previous_envelope\n\n{{previous_envelope}}\n";

/** A turn that writes `file` and says so. */
export function writeTurn(file: string, summary: string): ScriptedTurn {
  return {
    tool_calls: [{ tool: "write", write_file: { path: file, content: `${summary}\n` } }],
    reply: envelopeJson({ summary, artifacts: [file] }),
  };
}

export const replyTurn = (summary: string): ScriptedTurn => ({ reply: envelopeJson({ summary }) });

/** A git repo with the workflow `three` and scripted agents `first`, `second`, `third`. */
export class ResumeWorld {
  readonly sb = new Sandbox();
  readonly dir = this.sb.dir;

  constructor(turns: { first: ScriptedTurn[]; second: ScriptedTurn[]; third: ScriptedTurn[] }) {
    mkdirSync(path.join(this.dir, "adws"), { recursive: true });
    writeFileSync(path.join(this.dir, "adws/adw_three.ts"), THREE);
    writeFileSync(path.join(this.dir, ".gitignore"), "adws/adw_data/\n");
    writeFileSync(path.join(this.dir, "check.mjs"), 'console.log("ok 1");\n');
    this.sb.setup(
      [
        { name: "first", turns: turns.first, userPrompt: USER },
        { name: "second", turns: turns.second, userPrompt: USER },
        { name: "third", turns: turns.third, userPrompt: USER },
      ],
      { quality: { test: { command: ["node", "check.mjs"], timeout_seconds: 60 } } },
    );
    git(this.dir, ["init", "-q", "-b", "main"]);
    git(this.dir, ["add", "-A"]);
    git(this.dir, ["commit", "-q", "-m", "initial"]);
  }

  start(args: string[]) {
    return this.sb.start(args, GIT_ENV);
  }

  run(args: string[]): Promise<CliResult> {
    return this.sb.run(args, GIT_ENV);
  }

  /** `name:status` of every phase row, by number, `+r` when replayed. */
  phases(adwId: string): string[] {
    return this.sb
      .query<{ name: string; status: string; replayed_at: string | null }>(
        "SELECT name, status, replayed_at FROM phases WHERE adw_id = ? ORDER BY number",
        adwId,
      )
      .map((p) => `${p.name}:${p.status}${p.replayed_at === null ? "" : "+r"}`);
  }

  sends(agent: string): number {
    return this.sb.agent(agent).sends().length;
  }

  /** Commits on the run's branch after the initial one, oldest first. */
  commits(adwId: string): string[] {
    const [row] = this.sb.query<{ branch: string }>("SELECT branch FROM sessions WHERE adw_id = ?", adwId);
    return git(this.dir, ["log", "--format=%s", "--reverse", `main..${row?.branch ?? `sssf/${adwId}`}`])
      .trim()
      .split("\n")
      .filter(Boolean);
  }

  cleanup(): void {
    this.sb.cleanup();
  }
}
