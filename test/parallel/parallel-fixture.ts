import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Workflow } from "../../src/api/run-api.js";
import type { SssfConfig } from "../../src/config/config-types.js";
import type { RunOutcome } from "../../src/engine/run-workflow.js";
import { loadConfig, runWorkflow } from "../../src/library.js";
import { createScriptedAgent, type ScriptedAgent, type ScriptedTurn } from "../../src/testing/index.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";

/** One roster agent of a world: its script and, optionally, its `writes`. */
export interface WorldAgent {
  turns: ScriptedTurn[];
  writes?: string[];
}

/** Files every world starts with (committed). */
export const STARTING_FILES: Record<string, string> = {
  "a/base.txt": "alpha's\n",
  "b/base.txt": "beta's\n",
  "docs/guide.md": "# Guide\n",
  "notes/todo.txt": "one\ntwo\n",
};

export interface PhaseRecord {
  id: string;
  number: number;
  name: string;
  owner: string;
  status: string;
  error: string | null;
  started_at: string;
  ended_at: string | null;
}

export interface BreachRecord {
  agent: string;
  phase: string;
  payload: { path: string; change: string; rule: string; restored: boolean; note?: string };
}

/** A git repo with scripted exec agents, run in place by the in-process `runWorkflow`. */
export class World {
  readonly dir: string;
  readonly config: SssfConfig;
  readonly agents: Record<string, ScriptedAgent> = {};
  private readonly agentsDir: string;

  constructor(agents: Record<string, WorldAgent>) {
    this.dir = mkdtempSync(path.join(tmpdir(), "sssf-parallel-"));
    // Scripts and their state live outside the repo, so they never count as anyone's changes.
    this.agentsDir = mkdtempSync(path.join(tmpdir(), "sssf-parallel-agents-"));
    const roster = Object.entries(agents).map(([name, spec]) => {
      const agent = createScriptedAgent({ dir: this.agentsDir, name, turns: spec.turns });
      this.agents[name] = agent;
      this.write(`adws/adw_data/prompt_engineering/${name}/system.md`, `You are ${name}.\n`);
      this.write(
        `adws/adw_data/prompt_engineering/${name}/user.md`,
        "## prompt\n\n{{prompt}}\n\n## previous_envelope\n\n{{previous_envelope}}\n",
      );
      return {
        name,
        ...agent.rosterEntry,
        ...(spec.writes ? { writes: spec.writes } : {}),
      };
    });
    this.write("adws/adw_sssf_config/sssf.config.yaml", JSON.stringify({ agents: roster }, null, 2));
    for (const [file, content] of Object.entries(STARTING_FILES)) this.write(file, content);
    this.git("init", "-q");
    this.git("add", "-A");
    this.git("commit", "-q", "-m", "start");
    this.config = loadConfig({ cwd: this.dir });
  }

  git(...args: string[]): string {
    return execFileSync("git", args, {
      cwd: this.dir,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "sssf test",
        GIT_AUTHOR_EMAIL: "test@sssf.invalid",
        GIT_COMMITTER_NAME: "sssf test",
        GIT_COMMITTER_EMAIL: "test@sssf.invalid",
      },
    });
  }

  write(file: string, content: string): void {
    const target = path.join(this.dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }

  /** A repo file's text, or null when it is absent. */
  read(file: string): string | null {
    const target = path.join(this.dir, file);
    return existsSync(target) ? readFileSync(target, "utf8") : null;
  }

  run(workflow: Workflow, request = "go", signal?: AbortSignal): Promise<RunOutcome> {
    return runWorkflow({
      workflow,
      request,
      config: this.config,
      inPlace: true,
      ...(signal ? { signal } : {}),
    });
  }

  query<T>(sql: string, ...params: unknown[]): T[] {
    const db = openRawSqlite(this.config.dbPath, { readonly: true });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  phases(adwId: string): PhaseRecord[] {
    return this.query<PhaseRecord>(
      "SELECT id, number, name, owner, status, error, started_at, ended_at FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    );
  }

  breaches(adwId: string): BreachRecord[] {
    return this.query<{ agent: string; phase: string; payload: string }>(
      `SELECT e.agent, p.name AS phase, e.payload FROM events e JOIN phases p ON p.id = e.phase_id
       WHERE e.adw_id = ? AND e.type = 'error' AND e.name LIKE 'write outside boundary: %' ORDER BY p.number, e.rowid`,
      adwId,
    ).map((row) => ({ ...row, payload: JSON.parse(row.payload) as BreachRecord["payload"] }));
  }

  /** `git status` of the repo without sssf's own folder: "" when the tree is as committed. */
  porcelain(): string {
    return this.git("status", "--porcelain=v1", "--untracked-files=all", "--", ".", ":!adws/adw_data");
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.agentsDir, { recursive: true, force: true });
  }
}

export const ok = (fields: Record<string, unknown> = {}) => JSON.stringify({ status: "success", ...fields });

/** True when two phases' [started_at, ended_at] intervals overlap. */
export function overlap(a: { started_at: string; ended_at: string | null }, b: typeof a): boolean {
  const end = (row: typeof a) => Date.parse(row.ended_at ?? "9999-01-01T00:00:00Z");
  return Date.parse(a.started_at) < end(b) && Date.parse(b.started_at) < end(a);
}
