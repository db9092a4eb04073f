import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO_COMMITS, FIXED_CODE } from "../../src/demo/demo-story-files.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { adwIdFrom, type CliResult, cliPath, collect } from "../helpers/sandbox.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "sssf-demo-test-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The built CLI's `demo`, with git reading no global or system config (no identity, no hooks). */
function demo(dir: string): Promise<CliResult> {
  const gitConfig = path.join(root, "empty.gitconfig");
  writeFileSync(gitConfig, "");
  const env = { ...process.env, NO_COLOR: "1", GIT_CONFIG_GLOBAL: gitConfig, GIT_CONFIG_NOSYSTEM: "1" };
  return collect(
    spawn(process.execPath, [cliPath, "demo", "--dir", dir], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

function query<T>(dir: string, sql: string, ...params: unknown[]): T[] {
  const db = openRawSqlite(path.join(dir, "adws/adw_data/sssf.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

describe("sssf demo", () => {
  it("runs simple-sdlc through the real pi against the fake model and lands three commits", async () => {
    const dir = path.join(root, "repo");
    const result = await demo(dir);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ACCEPTED");
    for (const subject of Object.values(DEMO_COMMITS)) expect(result.stdout).toContain(subject);
    const adwId = adwIdFrom(result.stdout);
    expect(result.stdout).toContain(`phases ${adwId} --cwd ${dir}`);

    const [session] = query<Record<string, number | string | null>>(
      dir,
      "SELECT * FROM sessions WHERE adw_id = ?",
      adwId,
    );
    expect(session?.status).toBe("success");
    expect(session?.branch).toBe(`sssf/simple-sdlc/${adwId}`);
    expect(Number(session?.input_tokens)).toBeGreaterThan(0);
    expect(Number(session?.output_tokens)).toBeGreaterThan(0);
    expect(Number(session?.cost_usd)).toBeGreaterThan(0);

    // Exactly three commits on the run's branch, each with its own agent's message and files.
    const range = `${session?.base_ref}..${session?.branch}`;
    const shas = git(dir, "log", "--reverse", "--format=%H", range).split("\n");
    expect(shas.map((sha) => git(dir, "log", "-1", "--format=%s", sha))).toEqual([
      DEMO_COMMITS.plan,
      DEMO_COMMITS.code,
      DEMO_COMMITS.docs,
    ]);
    expect(shas.map((sha) => git(dir, "show", "--name-only", "--format=", sha).split("\n"))).toEqual([
      ["specs/slugify.md"],
      ["src/slugify.js", "test/slugify.test.js"],
      ["docs/slugify.md"],
    ]);
    expect(git(dir, "show", `${session?.branch}:src/slugify.js`)).toBe(FIXED_CODE.trim());
    // The operator's checkout stays on the base commit, clean.
    expect(git(dir, "rev-parse", "HEAD")).toBe(session?.base_ref);
    expect(git(dir, "status", "--porcelain")).toBe("");

    const phases = query<{ name: string; status: string }>(
      dir,
      "SELECT name, status FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    );
    expect(phases.map((p) => `${p.name}:${p.status}`)).toEqual([
      "request:success",
      "plan:success",
      "commit-plan:success",
      "build:success",
      "test:fail",
      "fix:success",
      "test:success",
      "changes:success",
      "review:success",
      "commit-code:success",
      "document:success",
      "commit-docs:success",
    ]);

    // The planner's first envelope forgot `status`, and was corrected in the same session.
    const envelopes = query<{
      agent: string;
      valid: number;
      reason: string;
      errors: string;
      envelope_json: string | null;
    }>(
      dir,
      `SELECT e.agent, e.valid, e.reason, e.errors, e.envelope_json FROM envelopes e JOIN phases p ON p.id = e.phase_id
       WHERE e.adw_id = ? AND p.kind = 'agent' ORDER BY e.created_at, e.id`,
      adwId,
    );
    expect(envelopes.map((e) => `${e.agent}:${e.valid}:${e.reason}`)).toEqual([
      "planner:0:initial",
      "planner:1:json_fix",
      "builder:1:initial",
      "builder:1:initial",
      "reviewer:1:initial",
      "documenter:1:initial",
    ]);
    expect(envelopes[0]?.errors).toContain("status");
    expect(JSON.parse(envelopes[4]?.envelope_json ?? "{}")).toMatchObject({ approved: true, blocking: [] });

    // The failing suite's output reached the fix prompt as a VerifyOutput.
    const fixPrompt = readFileSync(
      path.join(dir, "adws/adw_data/sessions", adwId, "builder/prompts/p06-fix-1-initial.user.md"),
      "utf8",
    );
    expect(fixPrompt).toContain('"passed": false');
    expect(fixPrompt).toContain("'-hello-world-'");

    const agents = query<{ agent: string; coding_agent: string; model: string; sends: number }>(
      dir,
      "SELECT agent, coding_agent, model, sends FROM agent_sessions WHERE adw_id = ? ORDER BY agent",
      adwId,
    );
    expect(agents.map((a) => `${a.agent}:${a.coding_agent}:${a.model}:${a.sends}`)).toEqual([
      "builder:pi:fake/fake-model:2",
      "documenter:pi:fake/fake-model:1",
      "planner:pi:fake/fake-model:2",
      "reviewer:pi:fake/fake-model:1",
    ]);
    const processes = query<{ agent: string; command: string; status: string; exit_code: number }>(
      dir,
      "SELECT agent, command, status, exit_code FROM processes WHERE adw_id = ? ORDER BY started_at",
      adwId,
    );
    expect(processes.map((p) => p.agent)).toEqual([
      "planner",
      "planner",
      "builder",
      "builder",
      "reviewer",
      "documenter",
    ]);
    for (const row of processes) {
      expect(row.command).toContain("pi-coding-agent");
      expect([row.status, row.exit_code]).toEqual(["exited", 0]);
    }

    // Every model request was answered by a scripted step, and nothing tried to leave the machine.
    const log = readFileSync(path.join(dir, "adws/adw_data/demo/fake-model.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { kind: string; step: unknown; status: number });
    expect(log.filter((entry) => entry.kind === "egress")).toEqual([]);
    expect(log.length).toBeGreaterThan(0);
    expect(log.every((entry) => typeof entry.step === "number" && entry.status === 200)).toBe(true);
    // The printed hint opens this trace.
    const phasesCli = execFileSync(process.execPath, [cliPath, "phases", adwId, "--cwd", dir], {
      encoding: "utf8",
    });
    expect(phasesCli).toContain("commit-docs");
    // pi's agent dir is the demo's own.
    expect(existsSync(path.join(dir, "adws/adw_data/demo/pi-agent/models.json"))).toBe(true);
  }, 300_000);

  it("refuses a folder that is not empty, and touches nothing in it", async () => {
    const dir = path.join(root, "taken");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "notes.txt"), "mine\n");
    const result = await demo(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--dir");
    expect(result.stderr).toContain("not empty");
    expect(result.stdout).toBe("");
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
    expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("mine\n");
  });
});
