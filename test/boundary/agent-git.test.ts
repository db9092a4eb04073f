import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  git,
  gitSandbox,
  promptPhase,
  runPrompt,
  runPromptInWorktree,
  STARTING_FILES,
} from "./boundary-fixture.js";

let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

/** The agent's shell: a new branch, and a commit on it of a file it may write and two it may not. */
const COMMIT_ON_A_BRANCH = [
  "git checkout -q -b side",
  "echo stray > stray.txt",
  "printf 'more\\n' >> docs/guide.md",
  "echo k > src/k.ts",
  "git add stray.txt docs/guide.md src/k.ts",
  "git -c user.name=Agent -c user.email=agent@example.test commit -q -m side",
].join(" && ");

function box(): Sandbox {
  return gitSandbox([
    {
      name: "assistant",
      extra: { writes: ["src/**"] },
      turns: [
        {
          tool_calls: [{ tool: "bash", bash: COMMIT_ON_A_BRANCH }],
          reply: envelopeJson({ summary: "done" }),
        },
      ],
    },
  ]);
}

/**
 * What the agent commits is a change all the same, even on a branch it made during the send: the
 * boundary reads HEAD again after every send instead of trusting what it knew before it.
 */
describe("an agent that commits on a new branch during its send", () => {
  it("in its worktree: the paths outside its boundary are put back, its own stays; the branch it made goes", async () => {
    sb = box();
    const result = await runPromptInWorktree(sb);
    expect(result.code).toBe(1);
    expect(promptPhase(sb, result.adwId).status).toBe("fail");
    const inRun = (file: string) => path.join(result.runRoot, file);
    // HEAD moving off the run's branch and a new branch are refs outside the run: put back (issue 34, item 4).
    expect(git(result.runRoot, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(
      `sssf/prompt/${result.adwId}`,
    );
    expect(git(sb.dir, "branch", "--list", "side").trim()).toBe("");
    expect(existsSync(inRun("stray.txt"))).toBe(false);
    expect(readFileSync(inRun("docs/guide.md"), "utf8")).toBe(STARTING_FILES["docs/guide.md"]);
    expect(readFileSync(inRun("src/k.ts"), "utf8")).toBe("k\n");
    expect(breachEvents(sb, result.adwId).map((e) => `${e.payload.path} ${e.payload.change}`)).toEqual([
      "docs/guide.md modified",
      "stray.txt added",
      `refs/heads/side, worktrees/${path.basename(result.runRoot)}/HEAD modified`,
    ]);
  });

  it("in place: the same, in the operator's own checkout", async () => {
    sb = box();
    const branch = git(sb.dir, "symbolic-ref", "--short", "HEAD").trim();
    const result = await runPrompt(sb);
    expect(result.code).toBe(1);
    expect(existsSync(path.join(sb.dir, "stray.txt"))).toBe(false);
    expect(readFileSync(path.join(sb.dir, "docs/guide.md"), "utf8")).toBe(STARTING_FILES["docs/guide.md"]);
    expect(git(sb.dir, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(branch);
    expect(git(sb.dir, "branch", "--list", "side").trim()).toBe("");
    expect(breachEvents(sb, result.adwId).map((e) => `${e.payload.path} ${e.payload.change}`)).toEqual([
      "docs/guide.md modified",
      "stray.txt added",
      "HEAD, refs/heads/side modified",
    ]);
  });
});
