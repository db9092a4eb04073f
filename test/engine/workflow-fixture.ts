import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SssfConfig } from "../../src/config/config-types.js";
import { loadConfig } from "../../src/library.js";
import { createScriptedAgent, type ScriptedAgent, type ScriptedTurn } from "../../src/testing/index.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";

export interface Repo {
  dir: string;
  config: SssfConfig;
  agents: Record<string, ScriptedAgent>;
  query<T>(sql: string, ...params: unknown[]): T[];
  cleanup(): void;
}

/** A scratch repo with scripted exec agents, loaded as a config for in-process `runWorkflow` tests. */
export function createRepo(
  agents: Record<string, ScriptedTurn[]>,
  options: { userPrompt?: string; top?: Record<string, unknown> } = {},
): Repo {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-engine-"));
  // Scripts and their state live outside the repo, so they never count as the phase's changes.
  const agentsDir = mkdtempSync(path.join(tmpdir(), "sssf-engine-agents-"));
  const scripted: Record<string, ScriptedAgent> = {};
  const roster = Object.entries(agents).map(([name, turns]) => {
    scripted[name] = createScriptedAgent({ dir: agentsDir, name, turns });
    const prompts = path.join(dir, "adws/adw_data/prompt_engineering", name);
    mkdirSync(prompts, { recursive: true });
    writeFileSync(path.join(prompts, "system.md"), `You are ${name}.\n`);
    writeFileSync(
      path.join(prompts, "user.md"),
      options.userPrompt ?? "## prompt\n\n{{prompt}}\n\n## previous_envelope\n\n{{previous_envelope}}\n",
    );
    return { name, ...scripted[name]?.rosterEntry };
  });
  mkdirSync(path.join(dir, "adws/adw_sssf_config"), { recursive: true });
  writeFileSync(
    path.join(dir, "adws/adw_sssf_config/sssf.config.yaml"),
    JSON.stringify({ agents: roster, ...options.top }),
  );
  const config = loadConfig({ cwd: dir });
  return {
    dir,
    config,
    agents: scripted,
    query<T>(sql: string, ...params: unknown[]) {
      const db = openRawSqlite(config.dbPath, { readonly: true });
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        db.close();
      }
    },
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(agentsDir, { recursive: true, force: true });
    },
  };
}

export const ok = (fields: Record<string, unknown> = {}) => JSON.stringify({ status: "success", ...fields });
