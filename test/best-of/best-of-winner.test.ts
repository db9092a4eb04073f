import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../code/fixtures.js";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";
import {
  adwIdFrom,
  attemptEvents,
  attemptTurn,
  choiceEvents,
  gitRepo,
  leftoverAttemptDirs,
  worktrees,
} from "./best-of-world.js";

process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("sssf run build --best-of 3 (exec agents)", () => {
  it("keeps the passing attempt with the fewest changed lines; the failing and the larger one lose", async () => {
    sb.setup(
      [
        {
          name: "builder",
          turns: [
            // Attempt 1 claims a file it did not write: its diff gate fails (no correction allowed).
            attemptTurn(1, "one.txt", 1, { claimed: "other.txt" }),
            attemptTurn(2, "small.txt", 2),
            attemptTurn(3, "big.txt", 5),
          ],
        },
      ],
      { limits: { retries: 0 } },
    );
    gitRepo(sb);
    const result = await sb.run(["run", "build", "add a file", "--best-of", "3"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(result.stdout).toContain("best of 3: attempt 2 wins — fewest changed lines (2 vs 5)");

    // The run's branch holds exactly attempt 2's change.
    const branch = git(sb.dir, "branch", "--list", `sssf/build/${adwId}`, "--format=%(refname:short)").trim();
    expect(branch).toBe(`sssf/build/${adwId}`);
    expect(git(sb.dir, "diff", "--name-only", "main", branch).trim().split("\n")).toEqual(["small.txt"]);
    expect(git(sb.dir, "show", `${branch}:small.txt`)).toBe("line 1 of attempt 2\nline 2 of attempt 2\n");

    // Every attempt traced against the build phase, the winner marked, its reason given.
    const phase = sb.query<{ id: string; cost_usd: number }>(
      "SELECT id, cost_usd FROM phases WHERE name = 'build'",
    );
    expect(phase).toHaveLength(1);
    const events = attemptEvents(sb);
    expect(events.map((e) => [e.name, e.ok, e.payload.status, e.payload.winner])).toEqual([
      ["attempt 1 of 3", 0, "failed", false],
      ["attempt 2 of 3", 1, "passed", true],
      ["attempt 3 of 3", 1, "passed", false],
    ]);
    for (const event of events) {
      expect(event.phase_id).toBe(phase[0]!.id);
      expect(event.agent).toBe("builder");
      expect(event.payload.of).toBe(3);
      expect(event.payload.mode).toBe("best");
    }
    expect(events[0]!.payload.reason).toMatch(/diffMatchesClaims/);
    expect(events[0]!.payload.gates).toEqual([
      expect.objectContaining({ gate: "diffMatchesClaims", ok: false }),
    ]);
    expect(events[1]!.payload).toMatchObject({ changed_lines: 2, files: ["small.txt"] });
    expect(events[2]!.payload).toMatchObject({ changed_lines: 5, files: ["big.txt"] });
    expect(events[2]!.payload.reason).toBe("passed, but attempt 2 changed fewer lines (2 vs 5)");
    expect(choiceEvents(sb)).toEqual([
      {
        name: "winner attempt 2",
        payload: { attempts: 3, mode: "best", winner: 2, reason: "fewest changed lines (2 vs 5)" },
      },
    ]);

    // Each attempt in its own session; its envelope ids name its own rows, numbered in one sequence.
    const sessions = new Set(events.map((e) => e.payload.agent_session_id));
    expect(sessions.size).toBe(3);
    const envelopes = sb.query<{ id: string; attempt: number; accepted: number }>(
      "SELECT id, attempt, accepted FROM envelopes WHERE phase_id = ? ORDER BY attempt",
      phase[0]!.id,
    );
    expect(envelopes.map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(envelopes.flatMap((e) => (e.accepted === 1 ? [e.id] : []))).toEqual(
      events[1]!.payload.envelope_ids,
    );
    expect(events.flatMap((e) => e.payload.envelope_ids).sort()).toEqual(envelopes.map((e) => e.id).sort());

    // Every diff kept in the session; no attempt worktree left.
    const session = sb.sessionDir(adwId);
    for (const event of events) {
      expect(event.payload.diff).toBe(`attempts/02-build-${event.payload.attempt}.diff`);
      expect(existsSync(path.join(session, event.payload.diff))).toBe(true);
    }
    expect(readFileSync(path.join(session, events[2]!.payload.diff), "utf8")).toContain(
      "+line 5 of attempt 3",
    );
    expect(leftoverAttemptDirs(sb)).toEqual([]);
    expect(worktrees(sb).filter((w) => w.includes("attempt"))).toEqual([]);
    expect(sb.agent("builder").sends()).toHaveLength(3);

    // `sssf phases`: one line per attempt under the build phase; `--json`: an attempts array.
    const listed = await sb.run(["phases", adwId, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const phases = JSON.parse(listed.stdout) as {
      name: string;
      attempts: Record<string, unknown>[];
      escalations: unknown[];
    }[];
    const build = phases.find((p) => p.name === "build");
    expect(build?.escalations).toEqual([]);
    expect(build?.attempts.map((a) => [a.attempt, a.status, a.winner, a.changed_lines, a.gates_ok])).toEqual([
      [1, "failed", false, 1, false],
      [2, "passed", true, 2, true],
      [3, "passed", false, 5, true],
    ]);
    expect(build?.attempts[1]).toMatchObject({
      of: 3,
      reason: "won: fewest changed lines (2 vs 5)",
      diff: "attempts/02-build-2.diff",
    });
    expect(phases.find((p) => p.name === "commit")?.attempts).toEqual([]);
    const text = await sb.run(["phases", adwId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /attempt 2\/3 +attempt +builder +WINNER .*2 changed line\(s\), gates ok — won: fewest changed lines \(2 vs 5\)/,
    );
    expect(text.stdout).toMatch(
      /attempt 1\/3 +attempt +builder +failed .*1 changed line\(s\), gates failed — gate violations/,
    );
    expect(text.stdout).toMatch(
      /attempt 3\/3 +attempt +builder +passed .*5 changed line\(s\), gates ok — passed, but attempt 2 changed fewer lines/,
    );
  });

  it("leaves the agent's own session to its later phases: a revise after a best-of build starts fresh, in the agent's folder", async () => {
    sb.setup([
      {
        name: "builder",
        turns: [
          attemptTurn(1, "a.txt", 1),
          attemptTurn(2, "b.txt", 3),
          {
            tool_calls: [{ tool: "write", write_file: { path: "a.txt", content: "revised\nmore\n" } }],
            reply: envelopeJson({ summary: "revised", changed_files: ["a.txt"], commit_message: "revise" }),
          },
        ],
      },
      {
        name: "reviewer",
        turns: [
          { reply: envelopeJson({ summary: "not yet", approved: false, blocking: ["say more"] }) },
          { reply: envelopeJson({ summary: "good", approved: true }) },
        ],
      },
    ]);
    gitRepo(sb);
    const result = await sb.run(["run", "build-review", "add a file", "--best-of", "2"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const sends = sb.agent("builder").sends();
    expect(sends).toHaveLength(3);
    const attemptSessions = attemptEvents(sb).map((e) => e.payload.agent_session_id);
    expect(attemptSessions).toContain(sends[0]!.session_id);
    // The revise is the builder's first send in its own session: not a resumed attempt's session.
    expect(sends[2]).toMatchObject({ resume: false, turn: 2 });
    expect(attemptSessions).not.toContain(sends[2]!.session_id);
    const map = JSON.parse(
      readFileSync(path.join(sb.sessionDir(adwIdFrom(result.stdout)), "agent_map.json"), "utf8"),
    ) as Record<string, { session_id: string }>;
    expect(map.builder?.session_id).toBe(sends[2]!.session_id);
    expect(Object.keys(map).sort()).toEqual([
      "builder",
      "builder/attempt-1",
      "builder/attempt-2",
      "reviewer",
    ]);
  });
});
