import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { GIT_ENV, git } from "../worktree/worktree-world.js";
import { attemptEvents, attemptTurn, gitRepo, leftoverAttemptDirs, worktrees } from "./best-of-world.js";

// A crash (SIGKILL of sssf) while a best-of phase's third attempt works: `sssf resume` keeps the two
// attempts that had finished (their agents are not asked again) and runs only the third. Through the
// real CLI (dist/: `npm run build` first), exec agents.
process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

function journaledAttempts(): number {
  try {
    return sb.query<{ n: number }>("SELECT count(*) AS n FROM steps WHERE op = 'attempt'")[0]?.n ?? 0;
  } catch {
    return 0; // The trace is not there yet.
  }
}

describe("best-of across a crash", () => {
  it("resumes after SIGKILL with the finished attempts kept and the unfinished one re-run", {
    timeout: 120_000,
  }, async () => {
    sb.setup(
      [
        {
          name: "builder",
          turns: [
            attemptTurn(1, "one.txt", 1),
            attemptTurn(2, "two.txt", 2, { claimed: "elsewhere.txt" }),
            { match_cwd: "attempt-3", hang: true },
            attemptTurn(3, "three.txt", 3),
          ],
        },
      ],
      { limits: { retries: 0 } },
    );
    gitRepo(sb);

    const child = sb.start(["run", "build", "add a file", "--best-of", "3", "--adw-id", "be570f01"], GIT_ENV);
    const done = collect(child);
    await waitFor(
      () => journaledAttempts() === 2 && sb.agent("builder").sends().length === 3,
      60_000,
      "attempts 1 and 2 journaled while attempt 3 hangs",
    );
    child.kill("SIGKILL");
    await done;
    for (const row of sb.query<{ pid: number }>("SELECT pid FROM processes WHERE status = 'running'")) {
      try {
        process.kill(-row.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }

    const resumed = await sb.run(["resume", "be570f01"], GIT_ENV);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      "! builder: resumes best of 3 with attempt(s) 1, 2 kept from before the crash",
    );
    // Attempts 1 and 2 were sent once, before the crash; only attempt 3 was sent again.
    // (A re-sent attempt would find its turn used up: a fifth send, with no turn.)
    const turns = sb
      .agent("builder")
      .sends()
      .map((send) => send.turn);
    expect(turns).toHaveLength(4);
    expect(turns.slice(0, 3).sort()).toEqual([0, 1, 2]);
    expect(turns[3]).toBe(3);
    const last = attemptEvents(sb).slice(-3);
    expect(last.map((e) => [e.payload.attempt, e.payload.status, e.payload.winner])).toEqual([
      [1, "passed", true],
      [2, "failed", false],
      [3, "passed", false],
    ]);
    expect(last[2]!.payload.reason).toBe("passed, but attempt 1 changed fewer lines (1 vs 3)");
    const branch = "sssf/build/be570f01";
    expect(git(sb.dir, ["diff", "--name-only", "main", branch]).trim()).toBe("one.txt");
    expect(leftoverAttemptDirs(sb)).toEqual([]);
    expect(worktrees(sb).filter((w) => w.includes("attempt"))).toEqual([]);
    const [session] = sb.query<{ status: string }>("SELECT status FROM sessions WHERE adw_id = 'be570f01'");
    expect(session?.status).toBe("success");
  });

  it("removes every attempt's worktree when the run is interrupted (SIGINT) mid best-of", {
    timeout: 120_000,
  }, async () => {
    sb.setup([
      {
        name: "builder",
        turns: [1, 2, 3].map((k) => ({ match_cwd: `attempt-${k}`, hang: true })),
      },
    ]);
    gitRepo(sb);
    const child = sb.start(["run", "build", "add a file", "--best-of", "3"], GIT_ENV);
    const done = collect(child);
    await waitFor(() => sb.agent("builder").sends().length === 3, 60_000, "three attempts sending");
    child.kill("SIGINT");
    const result = await done;
    expect(result.code).toBe(130);
    expect(leftoverAttemptDirs(sb)).toEqual([]);
    expect(worktrees(sb).filter((w) => w.includes("attempt"))).toEqual([]);
    expect(sb.query("SELECT pid FROM processes WHERE status = 'running'")).toEqual([]);
  });
});
