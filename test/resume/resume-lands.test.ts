import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  builderTurn,
  changedPaths,
  type FileOp,
  generateOps,
  hangingBuilderTurn,
  LandingWorld,
  plannerTurn,
  prng,
  TRACKED,
} from "./landing-world.js";

let world: LandingWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

/** The seed of the builder's operations and of the kill points (issue 35). */
const SEED = 35;
const OPS = generateOps(SEED);

interface KillPoint {
  name: string;
  /** What holds the run while sssf is killed: the builder (after `k` ops), the gate, or the suite. */
  hold: "agent" | "gate" | "suite";
  k: number;
}

/**
 * The kill points, generated: before the builder writes, after its first op, after a seeded number of
 * ops that includes a creation and a deletion, after all of them (still before its last message), after
 * its last message (held in a gate, before the envelope is journaled), and in the code phase after
 * its commit (held in the suite).
 */
function killPoints(ops: readonly FileOp[], seed: number): KillPoint[] {
  const random = prng(seed);
  const firstOf = (kind: FileOp["kind"]) => ops.findIndex((op) => op.kind === kind) + 1;
  // One file git sees written (a write to an ignored path before it changes nothing a gate compares).
  const one = ops.findIndex((op) => op.kind !== "ignored") + 1;
  const several = Math.max(firstOf("create"), firstOf("delete"), 2 + Math.floor(random() * (ops.length - 2)));
  const points: KillPoint[] = [
    { name: "before the builder writes", hold: "agent", k: 0 },
    { name: `after its first write (op ${one})`, hold: "agent", k: one },
    { name: `after ${several} writes (a new file and a deletion among them)`, hold: "agent", k: several },
    { name: `after all ${ops.length} writes`, hold: "agent", k: ops.length },
    { name: "after its last message, before the envelope is journaled", hold: "gate", k: ops.length },
    { name: "in the code phase, after its commit", hold: "suite", k: ops.length },
  ];
  return points.filter(
    (point, i) =>
      point.hold !== "agent" || points.findIndex((p) => p.hold === "agent" && p.k === point.k) === i,
  );
}

/** The tracked files once every op is applied. */
function expectedTip(ops: readonly FileOp[]): Record<string, string> {
  const files: Record<string, string> = { ...TRACKED };
  for (const op of ops) {
    if (op.kind === "delete") delete files[op.path];
    else if (op.kind !== "ignored") files[op.path] = op.content;
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
}

describe("sssf resume lands after SIGKILL in the middle of a phase", () => {
  it.each(killPoints(OPS, SEED))("killed $name", { timeout: 180_000 }, async (point) => {
    const adwId = `1a4d000${point.hold === "agent" ? point.k : point.hold === "gate" ? "g" : "s"}`.slice(
      0,
      8,
    );
    const w = new LandingWorld((ctrl) => ({
      planner: [plannerTurn()],
      builder: [
        point.hold === "agent"
          ? hangingBuilderTurn(OPS, point.k, path.join(ctrl, "seen-1"), ctrl)
          : builderTurn(OPS, path.join(ctrl, "seen-1")),
        builderTurn(OPS, path.join(ctrl, "seen-2")),
      ],
    }));
    world = w;
    const seen = (attempt: number) => path.join(w.ctrl, `seen-${attempt}`);
    await w.crash(adwId, point.hold);
    const killedIn = point.hold === "suite" ? "commit" : "build";
    expect(w.phases(adwId).at(-1)).toBe(`${killedIn}:running`);

    // The checkpoints the attempt took are in the repository, under the run's ref.
    expect(w.git(["for-each-ref", "--format=%(refname)", "refs/sssf/checkpoints"]).trim()).toBe(
      `refs/sssf/checkpoints/${adwId}`,
    );

    const resumed = await w.run(["resume", adwId]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    // Completed phases replayed: the planner got one request; the builder one more when its phase
    // did not complete.
    expect(w.sends("planner")).toBe(1);
    expect(w.sends("builder")).toBe(point.hold === "suite" ? 1 : 2);
    expect(w.phases(adwId)).toEqual(
      point.hold === "suite"
        ? ["plan:success+r", "build:success+r", "commit:interrupted", "commit:success"]
        : ["plan:success+r", "build:interrupted", "build:success", "commit:success"],
    );
    if (point.hold !== "suite") {
      // The re-run builder saw the world the first attempt saw: the checkpoint taken before its phase.
      expect(readFileSync(seen(2), "utf8")).toBe(readFileSync(seen(1), "utf8"));
      // Ignored files are not part of the checkpoint: what the killed attempt wrote there stays.
      const ignoredBefore = OPS.slice(0, point.k).some((op) => op.kind === "ignored");
      expect(readFileSync(`${seen(2)}.ignored`, "utf8").trim()).toBe(ignoredBefore ? "out.log" : "");
    }
    // One commit, holding exactly what the builder did.
    expect(w.commits(adwId)).toEqual(["Build the feature"]);
    expect(w.tipFiles(adwId)).toEqual(expectedTip(OPS));
    const [session] = w.query<{ status: string; accepted: number }>(
      "SELECT status, accepted FROM sessions WHERE adw_id = ?",
      adwId,
    );
    expect(session).toEqual({ status: "success", accepted: 1 });
    // Accepted: nothing will resume it, its checkpoints are gone.
    expect(w.git(["for-each-ref", "refs/sssf/checkpoints"]).trim()).toBe("");
    const claimed = changedPaths(OPS);
    expect(claimed.length).toBeGreaterThan(3);
    expect(existsSync(path.join(w.repo, "adws/adw_data/.worktrees", adwId, "build/out.log"))).toBe(true);
  });

  it("in place, puts nothing back (the checkout holds the operator's work too) and says so", {
    timeout: 180_000,
  }, async () => {
    const adwId = "1a4d00a1";
    const k = OPS.findIndex((op) => op.kind !== "ignored") + 1;
    const w = new LandingWorld((ctrl) => ({
      planner: [plannerTurn()],
      builder: [
        hangingBuilderTurn(OPS, k, path.join(ctrl, "seen-1"), ctrl),
        builderTurn(OPS, path.join(ctrl, "seen-2")),
      ],
    }));
    world = w;
    // The operator's own uncommitted work in the checkout.
    w.write("mine.txt", "my work\n");
    await w.crash(adwId, "agent", ["--in-place"]);
    expect(w.git(["for-each-ref", "refs/sssf/checkpoints"]).trim()).toBe("");

    const resumed = await w.run(["resume", adwId]);
    expect(resumed.stdout + resumed.stderr).toContain(
      "resume: build runs again on the checkout as the interrupted attempt left it",
    );
    // Nothing was put back: the re-run builder saw what the killed attempt wrote, and the operator's file.
    const seen = readFileSync(path.join(w.ctrl, "seen-2"), "utf8");
    expect(seen).not.toBe(readFileSync(path.join(w.ctrl, "seen-1"), "utf8"));
    expect(seen).toContain("mine.txt");
    expect(readFileSync(path.join(w.repo, "mine.txt"), "utf8")).toBe("my work\n");
    expect(w.sends("planner")).toBe(1);
  });
});
