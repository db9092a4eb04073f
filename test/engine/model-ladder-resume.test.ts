import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { GIT_ENV, git } from "../worktree/worktree-world.js";

// A crash mid-ladder (SIGKILL of sssf while the second rung's model works) resumes on that rung: the
// cheap model is not asked again. Through the real CLI (dist/: `npm run build` first), exec agents.
process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const bad = { match_model: "cheap", reply: "no json here" };

describe("a model ladder across a crash", () => {
  it("resumes after SIGKILL on the rung it had reached", {
    timeout: 120_000,
  }, async () => {
    // Four cheap turns: a resume that started over on the cheap model would play turns 2 and 3.
    sb.setup(
      [
        {
          name: "assistant",
          turns: [
            bad,
            bad,
            bad,
            bad,
            { match_model: "strong", hang: true },
            { match_model: "strong", reply: envelopeJson({ summary: "done on strong" }) },
          ],
          extra: { models: ["cheap", "strong"] },
        },
      ],
      { limits: { json_fix_attempts: 1 } },
    );
    writeFileSync(path.join(sb.dir, ".gitignore"), "adws/adw_data/\n");
    git(sb.dir, ["init", "-q", "-b", "main"]);
    git(sb.dir, ["add", "-A"]);
    git(sb.dir, ["commit", "-q", "-m", "initial"]);

    const child = sb.start(["run", "prompt", "build it", "--adw-id", "1add0001"], GIT_ENV);
    const done = collect(child);
    await waitFor(() => sb.agent("assistant").sends().length === 3, 60_000, "the strong model's first send");
    child.kill("SIGKILL");
    await done;
    for (const row of sb.query<{ pid: number }>("SELECT pid FROM processes WHERE status = 'running'")) {
      try {
        process.kill(-row.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }

    const resumed = await sb.run(["resume", "1add0001"], GIT_ENV);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      "! assistant: resumes its model ladder on strong, rung 2/2 (the earlier attempt's corrections ran out below it)",
    );
    const sends = sb.agent("assistant").sends();
    expect(sends.map((send) => send.turn)).toEqual([0, 1, 4, 5]);
    // The resumed rung is a fresh session too.
    expect(sends[3]!.resume).toBe(false);
    const [session] = sb.query<{ status: string }>("SELECT status FROM sessions WHERE adw_id = '1add0001'");
    expect(session?.status).toBe("success");
  });
});
