import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { adwIdFrom, type CliResult, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { GIT_ENV, git } from "../worktree/worktree-world.js";

/** What a test changes in the workflow `trio` between recording and replaying. */
export interface TrioVariant {
  /** The gate on `one` rejects a summary containing this word (default: a word no reply says). */
  forbidden?: string;
  /** `two`'s output type also requires a `ticket` field. */
  ticket?: boolean;
  /** The prompt `two` is called with starts with this (default "continue"). */
  verb?: string;
  /** A third agent phase, `three`, owned by `second`, after `two`. */
  extra?: boolean;
}

/**
 * The workflow `trio`: agent `one` (first, under a gate), the suite `test`, agent `two` (second);
 * accepted when `two` says success.
 */
export function trioWorkflow(variant: TrioVariant = {}): string {
  const forbidden = JSON.stringify(variant.forbidden ?? "xyzzy-never-said");
  const twoType = variant.ticket
    ? `defineOutputType("TwoOutput", EnvelopeBase.extend({ ticket: z.string().describe("the ticket") }), { status: "success", summary: "s", artifacts: [], notes_for_next_agent: "", ticket: "T-1" })`
    : "GenericOutput";
  const extra = variant.extra
    ? `\n    await run.agent("three", { owner: "second", description: "Third" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "check " + two.summary }));`
    : "";
  return `import { defineGate, defineOutputType, defineWorkflow, EnvelopeBase, GenericOutput, z } from "sssf";
const careful = defineGate("careful", (envelope, _context, report) => {
  const summary = String(envelope.summary ?? "");
  report.check("summary", !summary.includes(${forbidden}), "says " + ${forbidden});
});
const TWO = ${twoType};
export default defineWorkflow({
  name: "trio",
  description: "Two agents and a suite",
  agents: ["first", "second"],
  suites: ["test"],
  async run(run, request) {
    const one = await run.agent("one", { owner: "first", description: "First" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request, gates: [careful] }));
    const suite = await run.code("test", { owner: "quality", description: "Test" }, (phase) => phase.runSuite("test"));
    const two = await run.agent("two", { owner: "second", description: "Second" }, (phase) =>
      phase.call({ outputType: TWO, prompt: ${JSON.stringify(variant.verb ?? "continue")} + ": " + one.summary + " " + suite.status }));${extra}
    return run.finish({ accepted: two.status === "success", reason: two.summary });
  },
});
`;
}

export const ok = (summary: string): ScriptedTurn => ({ reply: envelopeJson({ summary }) });
export const failing = (summary: string): ScriptedTurn => ({
  reply: JSON.stringify({ status: "fail", summary }),
});
export const garbage: ScriptedTurn = { reply: "I did it, no JSON today" };

/** A git repo with the workflow `trio` and scripted agents `first` and `second`. */
export class ReplayWorld {
  readonly sb = new Sandbox();
  readonly dir = this.sb.dir;

  constructor(
    turns: { first: ScriptedTurn[]; second: ScriptedTurn[] },
    limits: Record<string, unknown> = {},
  ) {
    mkdirSync(path.join(this.dir, "adws"), { recursive: true });
    this.workflow();
    writeFileSync(path.join(this.dir, ".gitignore"), "adws/adw_data/\n");
    writeFileSync(path.join(this.dir, "check.mjs"), 'console.log("ok 1");\n');
    this.sb.setup(
      [
        { name: "first", turns: turns.first },
        { name: "second", turns: turns.second },
      ],
      { quality: { test: { command: ["node", "check.mjs"], timeout_seconds: 60 } }, limits },
    );
    git(this.dir, ["init", "-q", "-b", "main"]);
    git(this.dir, ["add", "-A"]);
    git(this.dir, ["commit", "-q", "-m", "initial"]);
  }

  /** Rewrites the config with these `limits` (the agents and the suite as they were). */
  limits(limits: Record<string, unknown>): void {
    this.sb.writeConfig({
      quality: { test: { command: ["node", "check.mjs"], timeout_seconds: 60 } },
      limits,
      agents: [...this.sb.agents.entries()].map(([name, agent]) => ({ name, ...agent.rosterEntry })),
    });
  }

  /** Rewrites `adws/adw_trio.ts` (the current code a replay runs). */
  workflow(variant: TrioVariant = {}): void {
    writeFileSync(path.join(this.dir, "adws/adw_trio.ts"), trioWorkflow(variant));
  }

  run(args: string[]): Promise<CliResult> {
    return this.sb.run(args, GIT_ENV);
  }

  /** Records one run of `trio`; its adw_id. */
  async record(request = "do the thing"): Promise<{ adwId: string; result: CliResult }> {
    const result = await this.run(["run", "trio", request]);
    return { adwId: adwIdFrom(result.stdout), result };
  }

  /** `sssf replay … --json`, parsed. */
  async replayJson(args: string[]): Promise<{ code: number | null; report: ReplayJson; stderr: string }> {
    const result = await this.run(["replay", ...args, "--json"]);
    return { code: result.code, report: JSON.parse(result.stdout) as ReplayJson, stderr: result.stderr };
  }

  /** sha256 of every row of the session in every table, and of every file of its folder. */
  fingerprint(adwId: string): string {
    const hash = createHash("sha256");
    for (const table of [
      "sessions",
      "phases",
      "events",
      "envelopes",
      "gate_results",
      "processes",
      "agent_sessions",
      "steps",
    ])
      hash.update(
        JSON.stringify(this.sb.query(`SELECT * FROM ${table} WHERE adw_id = ? ORDER BY rowid`, adwId)),
      );
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else hash.update(file).update(readFileSync(file));
      }
    };
    walk(this.sb.sessionDir(adwId));
    return hash.digest("hex");
  }

  cleanup(): void {
    this.sb.cleanup();
  }
}

export interface ReplayJson {
  changed: boolean;
  exit_code: number;
  elapsed_ms: number;
  replays: {
    adw_id: string;
    replay_id: string | null;
    workflow: string;
    changed: boolean;
    stopped: {
      position: number;
      phase: string;
      agent: string | null;
      send: number | null;
      why: string;
    } | null;
    recorded: { accepted: boolean | null; reason: string | null };
    replayed: { accepted: boolean; reason: string } | null;
    phases: {
      position: number;
      phase: string;
      kind: string;
      owner: string;
      outcome: string;
      detail: string;
      recorded_sends: number;
      replayed_sends: number;
    }[];
    notes: string[];
    record_dir: string | null;
  }[];
}

/** `position phase outcome` of each phase of one replay. */
export function outcomes(report: ReplayJson["replays"][number] | undefined): string[] {
  return (report?.phases ?? []).map((p) => `${p.position} ${p.phase} ${p.outcome}`);
}
