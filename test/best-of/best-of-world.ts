import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { git } from "../code/fixtures.js";
import { adwIdFrom, envelopeJson, type Sandbox } from "../helpers/sandbox.js";

// Best-of-N through the real CLI (dist/: `npm run build` first): scripted exec agents whose turns
// answer by the attempt's worktree (`match_cwd: "attempt-<k>"`), so each attempt passes or fails as a
// test chooses.

/** A repository with one commit; sssf's data ignored. */
export function gitRepo(sb: Sandbox): void {
  writeFileSync(
    path.join(sb.dir, ".gitignore"),
    "adws/adw_data/sessions/\nadws/adw_data/*.db*\nadws/adw_data/.worktrees/\n",
  );
  git(sb.dir, "init", "-q", "-b", "main");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

/** Attempt `k` writes `file` with `lines` lines and claims `claimed` (its diff gate fails when they differ). */
export function attemptTurn(
  k: number,
  file: string,
  lines: number,
  options: { claimed?: string; cost?: number; delayMs?: number; status?: string } = {},
): ScriptedTurn {
  const content = Array.from({ length: lines }, (_, i) => `line ${i + 1} of attempt ${k}`).join("\n");
  return {
    match_cwd: `attempt-${k}`,
    tool_calls: [{ tool: "write", write_file: { path: file, content: `${content}\n` } }],
    reply: envelopeJson({
      summary: `attempt ${k}`,
      changed_files: [options.claimed ?? file],
      commit_message: `attempt ${k}`,
      ...(options.status ? { status: options.status } : {}),
    }),
    ...(options.cost !== undefined
      ? { usage: { input_tokens: 10, output_tokens: 5, cost: options.cost } }
      : {}),
    ...(options.delayMs !== undefined ? { delay_ms: options.delayMs } : {}),
  };
}

export interface AttemptEvent {
  name: string;
  ok: number;
  phase_id: string;
  agent: string;
  payload: {
    attempt: number;
    of: number;
    mode: string;
    status: string;
    winner: boolean;
    reason: string;
    changed_lines: number;
    files: string[];
    cost_usd: number;
    agent_session_id: string;
    envelope_ids: string[];
    gates: { gate: string; ok: boolean; violations: string[] }[];
    check: { ok: boolean; summary: string } | null;
    diff: string;
  };
}

/** The `attempt` events in attempt order. */
export function attemptEvents(sb: Sandbox): AttemptEvent[] {
  return sb
    .query<Omit<AttemptEvent, "payload"> & { payload: string }>(
      "SELECT name, ok, phase_id, agent, payload FROM events WHERE type = 'attempt' ORDER BY rowid",
    )
    .map((row) => ({ ...row, payload: JSON.parse(row.payload) as AttemptEvent["payload"] }))
    .sort((a, b) => a.payload.attempt - b.payload.attempt);
}

/** The `best_of` events. */
export function choiceEvents(sb: Sandbox): { name: string; payload: Record<string, unknown> }[] {
  return sb
    .query<{ name: string; payload: string }>(
      "SELECT name, payload FROM events WHERE type = 'best_of' ORDER BY rowid",
    )
    .map((row) => ({ name: row.name, payload: JSON.parse(row.payload) as Record<string, unknown> }));
}

/** Folders named `*.attempts` (attempt worktrees' parents) left under the run's worktrees. */
export function leftoverAttemptDirs(sb: Sandbox): string[] {
  const root = path.join(sb.dir, "adws/adw_data/.worktrees");
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((name) => name.endsWith(".attempts"));
}

/** `git worktree list` paths of the sandbox's repository. */
export function worktrees(sb: Sandbox): string[] {
  return git(sb.dir, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

export { adwIdFrom };
