import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { buildTurn, GIT_ENV, git } from "../worktree/worktree-world.js";
import { outcomes, type ReplayJson } from "./replay-world.js";

/**
 * The built-in `build` workflow, whose gate (`diffMatchesClaims`) reads the files the phase changed:
 * the replay writes the files the recorded tool calls named into its scratch folder, so the gate
 * decides as it did; a claim the recorded calls never backed is rejected now as then.
 */
describe("sssf replay of the built-in build workflow", () => {
  let sb: Sandbox | undefined;
  afterEach(() => sb?.cleanup());

  it("the builder's recorded writes are told again: same; its tool calls are in the replay's trace", async () => {
    sb = new Sandbox();
    const s = sb;
    mkdirSync(path.join(s.dir, "src"), { recursive: true });
    writeFileSync(path.join(s.dir, "src/app.js"), 'export const app = "v1";\n');
    writeFileSync(path.join(s.dir, ".gitignore"), "adws/adw_data/\n");
    s.setup([
      {
        name: "builder",
        turns: [
          buildTurn("one"),
          // Claims a file it never wrote: rejected, then corrected with the truth.
          {
            reply: envelopeJson({
              summary: "bluff",
              changed_files: ["src/ghost.js"],
              commit_message: "Ghost",
            }),
          },
          {
            tool_calls: [
              { tool: "write", write_file: { path: "src/real.js", content: "export const real = 1;\n" } },
            ],
            reply: envelopeJson({
              summary: "honest",
              changed_files: ["src/real.js"],
              commit_message: "Real",
            }),
          },
        ],
      },
    ]);
    git(s.dir, ["init", "-q", "-b", "main"]);
    git(s.dir, ["add", "-A"]);
    git(s.dir, ["commit", "-q", "-m", "initial"]);
    const first = await s.run(["run", "build", "add the feature"], GIT_ENV);
    expect(first.code, first.stderr).toBe(0);
    const second = await s.run(["run", "build", "add another"], GIT_ENV);
    expect(second.code, second.stderr).toBe(0);
    const ids = [adwIdFrom(first.stdout), adwIdFrom(second.stdout)];

    const result = await s.run(["replay", ...ids, "--json"], GIT_ENV);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as ReplayJson;
    expect(outcomes(report.replays[0])).toEqual(["1 request same", "2 build same", "3 commit same"]);
    expect(outcomes(report.replays[1])).toEqual(["1 request same", "2 build same", "3 commit same"]);
    expect(report.replays[1]?.phases[1]?.recorded_sends).toBe(2);
    expect(s.agent("builder").sends()).toHaveLength(3);

    const replayDb = path.join(s.dir, "adws/adw_data/replays/replays.db");
    const { openRawSqlite } = await import("../helpers/raw-sqlite.js");
    const db = openRawSqlite(replayDb, { readonly: true });
    try {
      const calls = db
        .prepare("SELECT name FROM events WHERE adw_id = ? AND type = 'tool_call' ORDER BY started_at, id")
        .all(report.replays[0]?.replay_id ?? "") as { name: string }[];
      expect(calls).toHaveLength(2);
    } finally {
      db.close();
    }
  });
});
