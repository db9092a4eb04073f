import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  git,
  gitSandbox,
  porcelain,
  promptPhase,
  runPrompt,
  runPromptInWorktree,
  write,
} from "./boundary-fixture.js";
import { treeState } from "./tree-state.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
const scratch: string[] = [];
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder outside the repo for the planted hooks' marker (and an evil hooks folder). */
function markerDir(): { dir: string; marker: string; hook: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-hook-marker-"));
  scratch.push(dir);
  const marker = path.join(dir, "planted-hook-ran");
  return { dir, marker, hook: `#!/bin/sh\ntouch '${marker}'\n` };
}

/** Commits a change in the operator's checkout: what would run a planted hook. */
function operatorCommits(box: Sandbox): void {
  write(box, "docs/operator.md", "the operator's next commit\n");
  git(box.dir, "add", "docs/operator.md");
  git(box.dir, "commit", "-q", "-m", "operator's commit");
}

describe("the repository's git dir is always protected", () => {
  it("in place: puts back planted, modified, deleted and chmod-ed hooks, .git/config, and a file's executable bit", async () => {
    const { dir: evil, marker, hook } = markerDir();
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            tool_calls: [
              { tool: "write", write_file: { path: ".git/hooks/pre-commit", content: hook } },
              { tool: "bash", bash: "chmod +x .git/hooks/pre-commit" },
              {
                tool: "bash",
                bash: [
                  "rm .git/hooks/pre-push.sample",
                  "printf 'exit 0\\n' >> .git/hooks/update.sample",
                  "chmod -x .git/hooks/commit-msg.sample",
                  `mkdir -p '${evil}/hooks'`,
                  `printf '${hook.replace(/\n/g, "\\n")}' > '${evil}/hooks/post-commit'`,
                  `chmod +x '${evil}/hooks/post-commit'`,
                  `git config core.hooksPath '${evil}/hooks'`,
                  "chmod +x notes/todo.txt scratch/run.sh",
                ].join(" && "),
              },
              { tool: "write", write_file: { path: "src/ok.ts", content: "export {};\n" } },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    write(box, "scratch/run.sh", "echo untracked\n");
    chmodSync(path.join(box.dir, "scratch/run.sh"), 0o644);
    const hooksBefore = treeState(path.join(box.dir, ".git/hooks"));
    const configBefore = readFileSync(path.join(box.dir, ".git/config"));
    const statusBefore = porcelain(box);

    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    expect(treeState(path.join(box.dir, ".git/hooks"))).toEqual(hooksBefore);
    expect(readFileSync(path.join(box.dir, ".git/config")).equals(configBefore)).toBe(true);
    expect(statSync(path.join(box.dir, "notes/todo.txt")).mode & 0o777).toBe(0o644);
    expect(statSync(path.join(box.dir, "scratch/run.sh")).mode & 0o777).toBe(0o644);
    const lines = (status: string) => status.split("\n").filter(Boolean).sort();
    expect(lines(porcelain(box))).toEqual(lines(`${statusBefore}?? src/ok.ts\n`));
    const events = breachEvents(box, result.adwId);
    expect(events.map((e) => e.name).sort()).toEqual([
      "write outside boundary: .git/config (modified, protected)",
      "write outside boundary: .git/hooks/commit-msg.sample (modified, protected)",
      "write outside boundary: .git/hooks/pre-commit (added, protected)",
      "write outside boundary: .git/hooks/pre-push.sample (deleted, protected)",
      "write outside boundary: .git/hooks/update.sample (modified, protected)",
      "write outside boundary: notes/todo.txt (modified, outside_writes)",
      "write outside boundary: scratch/run.sh (modified, outside_writes)",
    ]);
    expect(events.every((e) => e.payload.restored === true)).toBe(true);
    expect(events.find((e) => e.payload.path === "notes/todo.txt")?.payload.note).toBe(
      "its mode changed from 644 to 755",
    );
    expect(promptPhase(box, result.adwId).error).toContain(
      ".git/hooks/pre-commit (added, protected) restored",
    );

    operatorCommits(box);
    expect(existsSync(marker)).toBe(false);
  });

  it("from a worktree: puts back hooks and config of the common git dir, by a write tool and by a shell", async () => {
    const { dir: evil, marker, hook } = markerDir();
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            tool_calls: [
              { tool: "write", write_file: { path: "../../../../.git/hooks/post-commit", content: hook } },
              {
                tool: "bash",
                bash: [
                  'hooks="$(git rev-parse --git-common-dir)/hooks"',
                  `printf '${hook.replace(/\n/g, "\\n")}' > "$hooks/pre-commit"`,
                  'chmod +x "$hooks/pre-commit" "$hooks/post-commit"',
                  `git config core.hooksPath '${evil}'`,
                ].join(" && "),
              },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    const hooksBefore = treeState(path.join(box.dir, ".git/hooks"));
    const configBefore = readFileSync(path.join(box.dir, ".git/config"));

    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    expect(result.runRoot).not.toBe(box.dir);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    expect(treeState(path.join(box.dir, ".git/hooks"))).toEqual(hooksBefore);
    expect(readFileSync(path.join(box.dir, ".git/config")).equals(configBefore)).toBe(true);
    const events = breachEvents(box, result.adwId);
    expect(
      events
        .map((e) => `${e.payload.path} ${e.payload.change} ${e.payload.rule} ${e.payload.restored}`)
        .sort(),
    ).toEqual([
      "../../../../.git/config modified protected true",
      "../../../../.git/hooks/post-commit added protected true",
      "../../../../.git/hooks/pre-commit added protected true",
    ]);

    operatorCommits(box);
    expect(existsSync(marker)).toBe(false);
  });
});
