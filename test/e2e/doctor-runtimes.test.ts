/**
 * `sssf doctor` about the CLI runtimes, through the built CLI (`npm run build` first) with the real
 * binaries in node_modules: the credentials each runtime's model lacks (an empty HOME and a scrubbed
 * environment), and a `--version` check that fails (exit code, signal, last stderr line) or passes on
 * its retry.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DoctorJson, DoctorJsonCheck } from "../../src/cli/commands/doctor.js";
import { cliPath, collect, repoRoot, Sandbox } from "../helpers/sandbox.js";

const bin = path.join(repoRoot, "node_modules/.bin");

let sb: Sandbox;
let home: string;
beforeEach(() => {
  sb = new Sandbox();
  home = mkdtempSync(path.join(tmpdir(), "sssf-doctor-home-"));
});
afterEach(() => {
  sb.cleanup();
  rmSync(home, { recursive: true, force: true });
});

/** The config's agents, each with the sandbox's prompts. */
function roster(agents: Record<string, unknown>[]): void {
  for (const agent of agents) {
    const dir = path.join(sb.dir, "adws/adw_data/prompt_engineering", String(agent.name));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "system.md"), "# agent\n");
    writeFileSync(path.join(dir, "user.md"), "# Task\n\n{{prompt}}\n");
  }
  sb.writeConfig({ agents });
}

/** `sssf doctor --json` with nothing of this machine's env: only PATH (node_modules/.bin first) and an empty HOME. */
async function doctor(): Promise<{ code: number | null; report: DoctorJson }> {
  const child = spawn(process.execPath, [cliPath, "doctor", "--json"], {
    cwd: sb.dir,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const result = await collect(child);
  expect(result.stderr).toBe("");
  return { code: result.code, report: JSON.parse(result.stdout) as DoctorJson };
}

const check = (report: DoctorJson, agent: string, item: string | RegExp): DoctorJsonCheck | undefined =>
  report.sections
    .find((section) => section.subject === `agents.${agent}`)
    ?.checks.find((c) => (typeof item === "string" ? c.item === item : item.test(c.item)));

describe("sssf doctor: credentials for the configured model", () => {
  it("names the variable to set and the login command of every runtime that has none", {
    timeout: 120_000,
  }, async () => {
    roster([
      { name: "pi_default", coding_agent: "pi", command: [path.join(bin, "pi")] },
      {
        name: "pi_named",
        coding_agent: "pi",
        command: [path.join(bin, "pi")],
        model: "anthropic/claude-sonnet-4-5",
      },
      { name: "claude", coding_agent: "claude_code", command: [path.join(bin, "claude")] },
      { name: "codex", coding_agent: "codex", command: [path.join(bin, "codex")] },
      { name: "gemini", coding_agent: "gemini", command: [path.join(bin, "gemini")] },
      { name: "opencode_default", coding_agent: "opencode", command: [path.join(bin, "opencode")] },
      {
        name: "opencode_named",
        coding_agent: "opencode",
        command: [path.join(bin, "opencode")],
        model: "anthropic/claude-sonnet-4-5",
      },
    ]);
    const { code, report } = await doctor();
    expect(code).toBe(1);
    // No model named: the runtime picks a provider with credentials, and none has any.
    expect(check(report, "pi_default", "credentials")).toMatchObject({
      status: "warning",
      detail: expect.stringMatching(/no provider has credentials.*ANTHROPIC_API_KEY.*`pi` and `\/login`/),
    });
    expect(check(report, "opencode_default", "credentials")).toMatchObject({
      status: "warning",
      detail: expect.stringMatching(/no provider has credentials.*ANTHROPIC_API_KEY.*`opencode auth login`/),
    });
    // A model named: its provider's variables and the login command.
    expect(check(report, "pi_named", /ANTHROPIC_API_KEY/)).toMatchObject({
      status: "problem",
      detail: expect.stringMatching(
        /anthropic: none set.*set ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY.*`\/login`/,
      ),
    });
    expect(check(report, "opencode_named", "ANTHROPIC_API_KEY")).toMatchObject({
      status: "problem",
      detail: expect.stringMatching(/set ANTHROPIC_API_KEY in the agent's env, or run `opencode auth login`/),
    });
    expect(check(report, "claude", "credentials")).toMatchObject({
      status: "problem",
      detail: expect.stringMatching(/set ANTHROPIC_API_KEY in the agent's env or run `claude auth login`/),
    });
    expect(check(report, "codex", "OPENAI_API_KEY")).toMatchObject({
      status: "problem",
      detail: expect.stringMatching(/run `codex login` or set OPENAI_API_KEY/),
    });
    expect(check(report, "gemini", "GEMINI_API_KEY")).toMatchObject({
      status: "problem",
      detail: expect.stringMatching(
        /set GEMINI_API_KEY in the agent's env, or run `gemini` and choose Login with Google/,
      ),
    });
  });

  it("passes each runtime's credentials once a key variable is set", { timeout: 120_000 }, async () => {
    roster([
      { name: "pi_default", coding_agent: "pi", command: [path.join(bin, "pi")], env: { GROQ_API_KEY: "k" } },
      {
        name: "opencode_default",
        coding_agent: "opencode",
        command: [path.join(bin, "opencode")],
        env: { ANTHROPIC_API_KEY: "k" },
      },
    ]);
    const { report } = await doctor();
    expect(check(report, "pi_default", "credentials")).toEqual(
      expect.objectContaining({ status: "ok", detail: "groq: key variable set" }),
    );
    expect(check(report, "opencode_default", "credentials")).toEqual(
      expect.objectContaining({ status: "ok", detail: expect.stringContaining("key variable set") }),
    );
  });
});

describe("sssf doctor: the version check", () => {
  /** An executable shell script in the agents dir that appends a line to `<name>.log` on every start. */
  function fakeCli(name: string, body: string): string {
    const file = path.join(sb.agentsDir, name);
    writeFileSync(file, `#!/bin/sh\necho run >> "${file}.log"\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }
  const starts = (file: string) => readFileSync(`${file}.log`, "utf8").split("\n").filter(Boolean).length;
  const secret = "ghp_R4nd0mT0k3nV4lu3Xq9Zp2Lm8Kw5Jt7Hs3Fd1";

  it("shows the exit code, the signal and the last stderr line (redacted), after one retry", {
    timeout: 60_000,
  }, async () => {
    const exits = fakeCli("exits3", `echo "starting" >&2\necho "bad token ${secret}" >&2\nexit 3`);
    const killed = fakeCli("killed", "kill -TERM $$");
    roster([
      { name: "exits", coding_agent: "claude_code", command: [exits] },
      { name: "killed", coding_agent: "claude_code", command: [killed] },
    ]);
    const { code, report } = await doctor();
    expect(code).toBe(1);
    expect(check(report, "exits", "version")).toEqual({
      subject: "agents.exits",
      item: "version",
      status: "problem",
      detail: `\`${exits} --version\` failed twice: exit code 3, no signal; last stderr line: "bad token [redacted:github-pat]"`,
    });
    expect(check(report, "killed", "version")).toMatchObject({
      status: "problem",
      detail: `\`${killed} --version\` failed twice: no exit code, signal SIGTERM`,
    });
    expect(JSON.stringify(report)).not.toContain(secret);
    expect(starts(exits)).toBe(2);
    expect(starts(killed)).toBe(2);
  });

  it("passes with a warning when the retry succeeds", { timeout: 60_000 }, async () => {
    const flaky = fakeCli(
      "flaky",
      `if [ -e "$0.once" ]; then echo "2.1.0 (Claude Code)"; else touch "$0.once"; echo "warming up" >&2; exit 1; fi`,
    );
    roster([{ name: "flaky", coding_agent: "claude_code", command: [flaky] }]);
    const { report } = await doctor();
    expect(check(report, "flaky", "version")).toMatchObject({
      status: "warning",
      detail: expect.stringContaining(`2.1.0 (sssf was tested with`),
    });
    expect(check(report, "flaky", "version")?.detail).toContain(
      `; the first \`${flaky} --version\` failed (exit code 1, no signal; last stderr line: "warming up"), the retry passed`,
    );
    expect(starts(flaky)).toBe(2);
  });
});
