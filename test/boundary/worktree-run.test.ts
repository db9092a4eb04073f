import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  git,
  gitSandbox,
  porcelain,
  promptPhase,
  runPromptInWorktree,
  STARTING_FILES,
} from "./boundary-fixture.js";

let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

describe("write boundaries in a run's own worktree", () => {
  it("restores the worktree, keeps in-boundary work, and leaves the operator's checkout alone", async () => {
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            tool_calls: [
              {
                tool: "bash",
                bash: "printf 'x\\n' >> docs/guide.md && rm notes/todo.txt && echo k > src/k.ts",
              },
              { tool: "write", write_file: { path: "../stray-next-to-worktree.txt", content: "no\n" } },
            ],
            reply: envelopeJson({ summary: "done" }),
          },
        ],
      },
    ]);
    sb = box;
    const checkoutStatus = porcelain(box);
    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    expect(result.runRoot).not.toBe(box.dir);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    const inRun = (file: string) => path.join(result.runRoot, file);
    expect(readFileSync(inRun("docs/guide.md"), "utf8")).toBe(STARTING_FILES["docs/guide.md"]);
    expect(readFileSync(inRun("notes/todo.txt"), "utf8")).toBe(STARTING_FILES["notes/todo.txt"]);
    expect(readFileSync(inRun("src/k.ts"), "utf8")).toBe("k\n");
    expect(existsSync(path.join(path.dirname(result.runRoot), "stray-next-to-worktree.txt"))).toBe(false);
    expect(git(result.runRoot, "status", "--porcelain")).toBe("?? src/k.ts\n");
    expect(porcelain(box)).toBe(checkoutStatus);
    expect(
      breachEvents(box, result.adwId).map(
        (e) => `${e.payload.path} ${e.payload.change} ${e.payload.restored}`,
      ),
    ).toEqual([
      "docs/guide.md modified true",
      "notes/todo.txt deleted true",
      "../stray-next-to-worktree.txt added true",
    ]);
  });
});
