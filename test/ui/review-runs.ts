/**
 * Real `build-test` runs for the reviewer's views, by the built CLI with the scripted builder: one
 * whose first fix makes the suite pass (accepted), one whose fixes never do (fixes exhausted), and one
 * whose suite already failed at the base commit (baseline stop). The suite passes unless
 * `src/app.js` says "broken"; at the base it says "v1" and `src/feature.js` does not matter.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { git, WorktreeWorld } from "../worktree/worktree-world.js";

const SUITE = `import { readFileSync } from "node:fs";
const app = readFileSync("src/app.js", "utf8");
if (app.includes("broken") || app.includes("base-fails")) {
  console.log("FAIL app is broken: " + app.trim());
  process.exit(1);
}
console.log("ok 1 app works");
`;

/** A builder turn writing `files` (path → content), claiming them all. */
export function writeTurn(label: string, files: Record<string, string>, commitMessage = label): ScriptedTurn {
  return {
    tool_calls: Object.entries(files).map(([p, content]) => ({
      tool: "write",
      write_file: { path: p, content },
    })),
    reply: envelopeJson({
      summary: label,
      changed_files: Object.keys(files).sort(),
      commit_message: commitMessage,
    }),
  };
}

const BROKEN = {
  "src/app.js": 'export const app = "broken";\n',
  "src/feature.js": "export const feature = 1;\n",
};

/** The three runs' worlds share nothing; each is one repository with its own trace. */
export interface ReviewRun {
  world: WorktreeWorld;
  adwId: string;
  stdout: string;
}

async function runBuildTest(turns: ScriptedTurn[], baseFails = false): Promise<ReviewRun> {
  const world = new WorktreeWorld(turns);
  writeFileSync(path.join(world.dir, "check.mjs"), SUITE);
  if (baseFails) writeFileSync(path.join(world.dir, "src/app.js"), 'export const app = "base-fails";\n');
  git(world.dir, ["add", "-A"]);
  git(world.dir, ["commit", "-q", "-m", "the suite"]);
  world.base = git(world.dir, ["rev-parse", "HEAD"]).trim();
  const result = await world.run(["run", "build-test", "add the feature"]);
  return { world, adwId: adwIdFrom(result.stdout), stdout: result.stdout + result.stderr };
}

/** Build breaks the app, the first fix repairs it: accepted, with a build and a fix phase that changed the tree. */
export function fixedRun(): Promise<ReviewRun> {
  return runBuildTest([
    writeTurn("build the feature", BROKEN, "Add the feature"),
    writeTurn("repair the app", { "src/app.js": 'export const app = "fixed";\n' }, "Repair the app"),
  ]);
}

/** Build breaks the app and both fixes leave it broken: not accepted, fixes exhausted. */
export function exhaustedRun(): Promise<ReviewRun> {
  return runBuildTest([
    writeTurn("build the feature", BROKEN),
    writeTurn("first try", { "src/app.js": 'export const app = "still broken 1";\n' }),
    writeTurn("second try", { "src/app.js": 'export const app = "still broken 2";\n' }),
  ]);
}

/** The suite fails at the base commit already and the build leaves it failing: a baseline stop. */
export function baselineRun(): Promise<ReviewRun> {
  return runBuildTest(
    [writeTurn("build the feature", { "src/feature.js": "export const feature = 1;\n" })],
    true,
  );
}

/** One repository, two runs of the same request: the fixed one, then the exhausted one (to compare). */
export async function twoRuns(): Promise<{ world: WorktreeWorld; fixed: string; exhausted: string }> {
  const first = await fixedRun();
  const { world } = first;
  world.script([
    writeTurn("build the feature", BROKEN),
    writeTurn("first try", { "src/app.js": 'export const app = "still broken 1";\n' }),
    writeTurn("second try", { "src/app.js": 'export const app = "still broken 2";\n' }),
  ]);
  const second = await world.run(["run", "build-test", "add the feature"]);
  return { world, fixed: first.adwId, exhausted: adwIdFrom(second.stdout) };
}
