import { cpSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { builderTurn, generateOps, hangingBuilderTurn, LandingWorld, plannerTurn } from "./landing-world.js";

let world: LandingWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const OPS = generateOps(35);

/** The prompts the builder was sent, with the session's folder spelled `<session>`. */
function builderPrompts(w: LandingWorld, sessionDirs: string[]): string[] {
  return (w.agents.get("builder")?.sends() ?? []).map((send) =>
    sessionDirs.reduce((text, dir) => text.replaceAll(dir, "<session>"), send.prompt),
  );
}

describe("sssf resume after the run's folders moved", () => {
  it("replays the completed phases after the repository (sessions folder and worktree inside) was moved", {
    timeout: 180_000,
  }, async () => {
    const adwId = "30ed0001";
    const w = new LandingWorld((ctrl) => {
      const base = path.dirname(path.dirname(ctrl));
      const session = path.join(base, "repo/adws/adw_data/sessions", adwId);
      return {
        planner: [plannerTurn(path.join(session, "context_handoff/plan.md"))],
        builder: [
          hangingBuilderTurn(OPS, 1, path.join(ctrl, "seen-1"), ctrl),
          builderTurn(OPS, path.join(ctrl, "seen-2")),
        ],
      };
    });
    world = w;
    const before = path.join(w.repo, "adws/adw_data/sessions", adwId);
    await w.crash(adwId, "agent");
    expect(w.phases(adwId)).toEqual(["plan:success", "build:running"]);

    const moved = path.join(w.base, "elsewhere", "moved-repo");
    mkdirSync(path.dirname(moved), { recursive: true });
    renameSync(w.repo, moved);
    w.repo = moved;
    const after = path.join(moved, "adws/adw_data/sessions", adwId);

    const resumed = await w.run(["resume", adwId]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    // The planner was not asked again: its phase replayed; only the interrupted build ran.
    expect(w.sends("planner")).toBe(1);
    expect(w.sends("builder")).toBe(2);
    expect(w.phases(adwId)).toEqual([
      "plan:success+r",
      "build:interrupted",
      "build:success",
      "commit:success",
    ]);
    expect(w.commits(adwId)).toEqual(["Build the feature"]);
    // The replayed plan's envelope was handed on with its path where the session now is.
    const [first, again] = builderPrompts(w, [before, after]);
    expect(again).toBe(first);
    expect(w.agents.get("builder")?.sends()[1]?.prompt).toContain(
      path.join(after, "context_handoff/plan.md"),
    );
    expect(readFileSync(path.join(w.ctrl, "seen-2"), "utf8")).toBe(
      readFileSync(path.join(w.ctrl, "seen-1"), "utf8"),
    );
  });

  it("replays the completed phases on a second worker whose checkout and sessions folder are elsewhere", {
    timeout: 180_000,
  }, async () => {
    const adwId = "30ed0002";
    // Worker 1: the checkout, and a data dir (sessions, worktrees) of its own; the trace is shared.
    const w = new LandingWorld(
      (ctrl) => {
        const base = path.dirname(path.dirname(ctrl));
        const session = path.join(base, "w1/data/sessions", adwId);
        return {
          planner: [plannerTurn(path.join(session, "context_handoff/plan.md"))],
          builder: [builderTurn(OPS, path.join(ctrl, "seen-1"))],
        };
      },
      { dataDir: "WORKER_DATA" },
    );
    world = w;
    const shared = path.join(w.base, "shared/sssf.db");
    mkdirSync(path.dirname(shared), { recursive: true });
    w.env = { SSSF_DB: shared };
    w.dbPath = shared;
    const worker = (n: number) => ({
      checkout: path.join(w.base, `w${n}/checkout`),
      data: path.join(w.base, `w${n}/data`),
    });
    const setDataDir = (dir: string) => {
      const file = path.join(w.repo, "adws/adw_sssf_config/sssf.config.yaml");
      w.write(
        "adws/adw_sssf_config/sssf.config.yaml",
        readFileSync(file, "utf8").replace(/"WORKER_DATA"|"\/[^"]*\/data"/, JSON.stringify(dir)),
      );
    };
    mkdirSync(path.dirname(worker(1).checkout), { recursive: true });
    renameSync(w.repo, worker(1).checkout);
    w.repo = worker(1).checkout;
    setDataDir(worker(1).data);
    // Killed in the code phase, after its commit: the plan and the build completed.
    await w.crash(adwId, "suite");
    expect(w.phases(adwId)).toEqual(["plan:success", "build:success", "commit:running"]);

    // Worker 2 takes it over from copies of the checkout and the data dir in its own folders.
    cpSync(worker(1).checkout, worker(2).checkout, { recursive: true, verbatimSymlinks: true });
    cpSync(worker(1).data, worker(2).data, { recursive: true, verbatimSymlinks: true });
    w.repo = worker(2).checkout;
    setDataDir(worker(2).data);
    const resumed = await w.run(["resume", adwId]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(w.sends("planner")).toBe(1);
    expect(w.sends("builder")).toBe(1);
    expect(w.phases(adwId)).toEqual([
      "plan:success+r",
      "build:success+r",
      "commit:interrupted",
      "commit:success",
    ]);
    // One commit on worker 2's branch: the interrupted attempt's was undone with its checkpoint.
    expect(w.commits(adwId)).toEqual(["Build the feature"]);
    const [session] = w.query<{ accepted: number; worktree: string }>(
      "SELECT accepted, worktree FROM sessions WHERE adw_id = ?",
      adwId,
    );
    expect(session).toEqual({ accepted: 1, worktree: path.join(worker(2).data, ".worktrees", adwId) });
    // Worker 1's repository still knows its own worktree: reconnecting the copy wrote only worker 2's files.
    expect(w.git(["worktree", "list", "--porcelain"], worker(1).checkout)).toContain(
      `worktree ${path.join(worker(1).data, ".worktrees", adwId)}\n`,
    );
  });
});
