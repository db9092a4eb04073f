import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliPath, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { GIT_ENV, git } from "../worktree/worktree-world.js";

/**
 * `sssf run … > run.log 2>&1` inside the repository: sssf writes that file all through every send,
 * while the agent's tool calls run. It is sssf's own output: never the agent's breach to undo (which
 * truncated the log and failed the run), the run's change to commit, or the operator's dirty file.
 */

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const CALLS = 12;

/**
 * An exec agent whose tool calls each ran for the 300 ms before it reports them, one every 25 ms: every
 * write of sssf's to its log falls inside some call's run. It writes `made.txt` in its working folder.
 */
const AGENT = (reply: string) => `
import { writeFileSync } from "node:fs";
process.stdin.resume();
process.stdin.on("end", async () => {
  writeFileSync("made.txt", "made\\n");
  for (let i = 0; i < ${CALLS}; i++) {
    const ended = new Date();
    const started = new Date(ended.getTime() - 300);
    const call = { type: "tool_call", tool: "bash", args: { command: "step " + i }, result: "ok " + i,
      started_at: started.toISOString(), ended_at: ended.toISOString() };
    process.stdout.write(JSON.stringify(call) + "\\n");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  process.stdout.write(JSON.stringify({ type: "result", text: ${JSON.stringify(reply)} }) + "\\n");
});
`;

/** An agent phase, then a commit of what it wrote. */
const WRITE_AND_COMMIT = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "write-commit",
  description: "An agent writes, code commits",
  agents: ["assistant"],
  async run(run, request) {
    await run.agent("write", { owner: "assistant", description: "Write" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const made = await run.code("commit", { owner: "git", description: "Commit" }, (phase) =>
      phase.commit("write-commit: made.txt"));
    return run.finish({ accepted: made !== null, reason: made ? "committed" : "nothing to commit" });
  },
});
`;

function setUp(): void {
  sb.setup([{ name: "assistant", turns: [], extra: { writes: ["made.txt"] } }]);
  const script = path.join(sb.agentsDir, "slow-calls.mjs");
  writeFileSync(script, AGENT(envelopeJson({ summary: "made it", artifacts: ["made.txt"] })));
  sb.writeConfig({
    agents: [
      { name: "assistant", coding_agent: "exec", command: [process.execPath, script], writes: ["made.txt"] },
    ],
  });
  mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
  writeFileSync(path.join(sb.dir, "adws/adw_write_commit.ts"), WRITE_AND_COMMIT);
  writeFileSync(path.join(sb.dir, ".gitignore"), "adws/adw_data/\n");
  git(sb.dir, ["init", "-q", "-b", "main"]);
  git(sb.dir, ["add", "-A"]);
  git(sb.dir, ["commit", "-q", "-m", "initial"]);
}

/** Runs the CLI with stdout and stderr both appended to `log` (a path in the checkout), as a shell's `>> log 2>&1`. */
function runInto(log: string, args: string[]): Promise<number | null> {
  const fd = openSync(log, "a");
  try {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: sb.dir,
      env: { ...process.env, ...GIT_ENV, NO_COLOR: "1" },
      stdio: ["ignore", fd, fd],
    });
    return new Promise((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => resolve(code));
    });
  } finally {
    closeSync(fd);
  }
}

const adwIdIn = (text: string) => /adw_id ([0-9a-f]{8})/.exec(text)?.[1] ?? "";

function breaches(adwId: string): string[] {
  return sb
    .query<{ name: string }>("SELECT name FROM events WHERE adw_id = ? AND type = 'error'", adwId)
    .map((row) => row.name)
    .filter((name) => name.startsWith("write outside boundary: "));
}

describe("sssf's own output redirected into the repository", () => {
  it("a worktree run keeps writing its log: no breach, nothing restored, no dirty-file notice", {
    timeout: 60_000,
  }, async () => {
    setUp();
    const log = path.join(sb.dir, "run.log");
    writeFileSync(log, "earlier runs' lines\n");
    const code = await runInto(log, ["run", "prompt", "make it"]);
    const text = readFileSync(log, "utf8");
    expect(code, text).toBe(0);
    const adwId = adwIdIn(text);
    expect(breaches(adwId)).toEqual([]);
    expect(text.startsWith("earlier runs' lines\n")).toBe(true);
    expect(text).not.toContain("not in this run's worktree");
    // Every tool call's line and the run's end are in the log, as written.
    for (let i = 0; i < CALLS; i++) expect(text).toContain(`bash: step ${i}`);
    expect(text).toContain(`ACCEPTED ${adwId}`);
    expect(git(sb.dir, ["status", "--porcelain"])).toBe("?? run.log\n");
  });

  it("an in-place run commits the agent's file, never its own log", { timeout: 60_000 }, async () => {
    setUp();
    mkdirSync(path.join(sb.dir, "logs"));
    const log = path.join(sb.dir, "logs/run.log");
    const code = await runInto(log, ["run", "write-commit", "make it", "--in-place"]);
    const text = readFileSync(log, "utf8");
    expect(code, text).toBe(0);
    const adwId = adwIdIn(text);
    expect(breaches(adwId)).toEqual([]);
    expect(git(sb.dir, ["show", "--name-only", "--format=", "HEAD"])).toBe("made.txt\n");
    expect(git(sb.dir, ["status", "--porcelain"])).toBe("?? logs/\n");
    expect(existsSync(path.join(sb.dir, "made.txt"))).toBe(true);
    expect(text).toContain(`ACCEPTED ${adwId}: committed`);
  });
});
