import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type AgentSpec, adwIdFrom, type CliResult, cliPath, Sandbox } from "../helpers/sandbox.js";

const GIT_ENV = {
  GIT_AUTHOR_NAME: "sssf test",
  GIT_AUTHOR_EMAIL: "test@sssf.invalid",
  GIT_COMMITTER_NAME: "sssf test",
  GIT_COMMITTER_EMAIL: "test@sssf.invalid",
};

/** Runs git in `cwd` with a fixed identity; returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });
}

/** Files every boundary test repo starts with (committed). */
export const STARTING_FILES: Record<string, string> = {
  "docs/guide.md": "# Guide\n\nRead me first.\n",
  "src/main.ts": "export const main = 1;\n",
  "notes/todo.txt": "one\ntwo\n",
};

/**
 * The OS sandbox off: these tests check the write boundary itself, the second line of defence for
 * `sandbox.mode: off` and platforms without a box (a boxed agent could not make most of these writes).
 */
export const UNBOXED = { sandbox: { mode: "off" } };

/** A sandbox whose roster is `agents`, with the starting files, committed once; the OS sandbox off. */
export function gitSandbox(agents: AgentSpec[], top: Record<string, unknown> = {}): Sandbox {
  const sb = new Sandbox().setup(agents, { ...UNBOXED, ...top });
  for (const [file, content] of Object.entries(STARTING_FILES)) write(sb, file, content);
  git(sb.dir, "init", "-q");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
  return sb;
}

export function write(sb: Sandbox, file: string, content: string | Buffer): void {
  const target = path.join(sb.dir, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, content);
}

/** The bytes of a repo file, or null when it is absent. */
export function bytes(sb: Sandbox, file: string): Buffer | null {
  const target = path.join(sb.dir, file);
  return existsSync(target) ? readFileSync(target) : null;
}

/** A unique name for a file next to the sandbox (in its parent folder). */
export function outsideName(): string {
  return `outside-${randomBytes(6).toString("hex")}.txt`;
}

let inPlaceFlag: string[] | null = null;

/** `--in-place` when this build of the CLI has it (runs would otherwise get their own worktree). */
function inPlace(): string[] {
  if (inPlaceFlag === null) {
    const help = execFileSync(process.execPath, [cliPath, "run", "--help"], { encoding: "utf8" });
    inPlaceFlag = help.includes("--in-place") ? ["--in-place"] : [];
  }
  return inPlaceFlag;
}

/** `sssf run prompt <request>` in place; resolves to the CLI result and the run's adw_id. */
export async function runPrompt(sb: Sandbox, request = "do it"): Promise<CliResult & { adwId: string }> {
  const result = await sb.run(["run", "prompt", request, ...inPlace()]);
  return { ...result, adwId: adwIdFrom(result.stdout) };
}

/** `sssf run prompt <request>` in the run's own worktree; also resolves to the run root the session reports. */
export async function runPromptInWorktree(
  sb: Sandbox,
  request = "do it",
): Promise<CliResult & { adwId: string; runRoot: string }> {
  const result = await sb.run(["run", "prompt", request]);
  const adwId = adwIdFrom(result.stdout);
  const [row] = sb.query<{ cwd: string }>("SELECT cwd FROM sessions WHERE adw_id = ?", adwId);
  if (!row) throw new Error(`no session ${adwId}`);
  return { ...result, adwId, runRoot: row.cwd };
}

export interface ErrorEvent {
  name: string;
  agent: string | null;
  phase: string;
  payload: {
    path?: string;
    change?: string;
    previous_path?: string;
    rule?: string;
    restored?: boolean;
    note?: string;
    kept_blob?: string;
    kept_path?: string;
    error?: string;
  };
}

/** The run's `error` events in order, with their phase's name. */
export function errorEvents(sb: Sandbox, adwId: string): ErrorEvent[] {
  return sb
    .query<{ name: string; agent: string | null; phase: string; payload: string }>(
      `SELECT e.name, e.agent, p.name AS phase, e.payload FROM events e JOIN phases p ON p.id = e.phase_id
       WHERE e.adw_id = ? AND e.type = 'error' ORDER BY e.started_at, e.rowid`,
      adwId,
    )
    .map((row) => ({ ...row, payload: JSON.parse(row.payload) as ErrorEvent["payload"] }));
}

/** The breach events only (one per path). */
export function breachEvents(sb: Sandbox, adwId: string): ErrorEvent[] {
  return errorEvents(sb, adwId).filter((e) => e.name.startsWith("write outside boundary: "));
}

/** Status of the run's agent phase `prompt`. */
export function promptPhase(sb: Sandbox, adwId: string): { status: string; error: string | null } {
  const [row] = sb.query<{ status: string; error: string | null }>(
    "SELECT status, error FROM phases WHERE adw_id = ? AND name = 'prompt'",
    adwId,
  );
  if (!row) throw new Error(`no prompt phase in ${adwId}`);
  return row;
}

/** What `git status --porcelain` says, for "the tree is as it was" assertions. */
export function porcelain(sb: Sandbox): string {
  return git(sb.dir, "status", "--porcelain=v1", "--untracked-files=all", "--", ".", ":!adws/adw_data");
}
