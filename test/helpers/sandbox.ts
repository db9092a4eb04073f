import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedAgent, type ScriptedAgent, type ScriptedTurn } from "../../src/testing/index.js";
import { nodeSqliteCutsAtNul } from "../../src/trace/sqlite/driver.js";
import { openRawSqlite, type RawSqlite } from "./raw-sqlite.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const cliPath = path.join(repoRoot, "dist/cli/main.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AgentSpec {
  name: string;
  turns: ScriptedTurn[];
  /** Extra YAML lines under the agent (indented by the caller's choice of keys). */
  extra?: Record<string, unknown>;
  userPrompt?: string;
}

const SYSTEM = "# {{adw_id}} agent\n\nDo the task, then reply with the JSON report.\n";
const USER =
  "# Task\n\n## Variables\n\n### prompt\n\n{{prompt}}\n\n### previous_envelope\n\n{{previous_envelope}}\n\n## Task\n\nDo what prompt asks.\n";

/** A scratch repo with a roster of scripted exec agents, and a way to run the real CLI in it. */
export class Sandbox {
  readonly dir: string;
  /** Scripts and their state live outside the repo, so they never count as a phase's changes. */
  readonly agentsDir: string;
  readonly agents = new Map<string, ScriptedAgent>();

  constructor() {
    this.dir = mkdtempSync(path.join(tmpdir(), "sssf-e2e-"));
    this.agentsDir = mkdtempSync(path.join(tmpdir(), "sssf-e2e-agents-"));
    writeFileSync(path.join(this.dir, "README.md"), "# sandbox\n");
  }

  /** Writes the config and prompts for these agents; `top` holds extra top-level YAML sections. */
  setup(agents: AgentSpec[], top: Record<string, unknown> = {}): this {
    const roster = agents.map((spec) => {
      const agent = createScriptedAgent({
        dir: this.agentsDir,
        name: spec.name,
        turns: spec.turns,
      });
      this.agents.set(spec.name, agent);
      const promptDir = path.join(this.dir, "adws/adw_data/prompt_engineering", spec.name);
      mkdirSync(promptDir, { recursive: true });
      writeFileSync(path.join(promptDir, "system.md"), SYSTEM);
      writeFileSync(path.join(promptDir, "user.md"), spec.userPrompt ?? USER);
      return { name: spec.name, ...agent.rosterEntry, ...spec.extra };
    });
    this.writeConfig({ ...top, agents: roster });
    return this;
  }

  writeConfig(config: unknown, file = "adws/adw_sssf_config/sssf.config.yaml"): string {
    const target = path.join(this.dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    // JSON is valid YAML, and keeps the test free of YAML quoting rules.
    writeFileSync(target, typeof config === "string" ? config : JSON.stringify(config, null, 2));
    return target;
  }

  agent(name: string): ScriptedAgent {
    const agent = this.agents.get(name);
    if (!agent) throw new Error(`no scripted agent ${name}`);
    return agent;
  }

  start(args: string[], env: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, [cliPath, ...args], {
      cwd: this.dir,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
  }

  run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return collect(this.start(args, env));
  }

  db(): RawSqlite {
    return openRawSqlite(path.join(this.dir, "adws/adw_data/sssf.db"), { readonly: true });
  }

  query<T>(sql: string, ...params: unknown[]): T[] {
    const db = this.db();
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  sessionDir(adwId: string): string {
    return path.join(this.dir, "adws/adw_data/sessions", adwId);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.agentsDir, { recursive: true, force: true });
  }
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `text` as the trace database gives it back: on Node 22's node:sqlite, which reads text only up to a
 * NUL, sssf stores each NUL as U+FFFD (src/trace/sqlite/driver.ts); everywhere else, unchanged.
 */
export function asStored(text: string): string {
  return nodeSqliteCutsAtNul() ? text.replaceAll("\0", "\uFFFD") : text;
}

/** The adw_id the CLI printed on its first line. */
export function adwIdFrom(stdout: string): string {
  const match = /adw_id (\S+)/.exec(stdout);
  if (!match?.[1]) throw new Error(`no adw_id in output:\n${stdout}`);
  return match[1];
}

export const envelopeJson = (fields: Record<string, unknown>) =>
  JSON.stringify({ status: "success", ...fields });
