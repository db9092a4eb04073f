import { chmodSync, existsSync, lstatSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedToolCall } from "../../src/testing/index.js";
import { adwIdFrom, collect, envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  bytes,
  git,
  gitSandbox,
  porcelain,
  promptPhase,
  runPromptInWorktree,
  STARTING_FILES,
  write,
} from "./boundary-fixture.js";
import { treeState } from "./tree-state.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

/** From the run's worktree (`<checkout>/adws/adw_data/.worktrees/<adw_id>`) to the checkout. */
const CHECKOUT = "../../../..";

/** A sandbox whose one agent may write only `src/**`, playing `calls` in one send. */
function sandbox(calls: ScriptedToolCall[]): Sandbox {
  sb = gitSandbox([
    { name: "assistant", extra: { writes: ["src/**"] }, turns: [{ tool_calls: calls, reply: done }] },
  ]);
  return sb;
}

/** Gives the checkout an ignored `node_modules` (linked into every worktree) and commits the ignore file. */
function withNodeModules(box: Sandbox): string {
  writeFileSync(path.join(box.dir, ".gitignore"), "node_modules\nadws/adw_data/\n");
  git(box.dir, "add", ".gitignore");
  git(box.dir, "commit", "-q", "-m", "ignore node_modules");
  write(box, "node_modules/left-pad/package.json", '{"name":"left-pad","main":"index.js"}\n');
  write(box, "node_modules/left-pad/index.js", "module.exports = (s, n) => s.padStart(n);\n");
  write(box, "node_modules/.bin/tool", "#!/bin/sh\n");
  chmodSync(path.join(box.dir, "node_modules/.bin/tool"), 0o755);
  return path.join(box.dir, "node_modules");
}

/** The operator's uncommitted work: a dirty tracked file and an untracked one. */
function operatorWork(box: Sandbox): void {
  write(box, "README.md", "# sandbox, edited by the operator\n");
  write(box, "scratch/idea.txt", "untracked idea\n");
  chmodSync(path.join(box.dir, "scratch/idea.txt"), 0o600);
}

const summary = (box: Sandbox, adwId: string) =>
  breachEvents(box, adwId)
    .map((e) => `${e.payload.path} ${e.payload.change} ${e.payload.rule} ${e.payload.restored}`)
    .sort();

describe("a worktree run guards the operator's checkout", () => {
  it("restores the linked node_modules byte for byte, modes too, and leaves tool caches alone", async () => {
    const box = sandbox([
      {
        tool: "bash",
        bash: [
          "printf 'module.exports = () => \"pwned\";\\n' > node_modules/left-pad/index.js",
          "mkdir -p node_modules/evil/lib && echo x > node_modules/evil/lib/index.js",
          "rm node_modules/.bin/tool",
          "chmod +x node_modules/left-pad/package.json",
          "mkdir -p node_modules/.vite/vitest && echo '{}' > node_modules/.vite/vitest/results.json",
        ].join(" && "),
      },
      { tool: "write", write_file: { path: "node_modules/left-pad/README.md", content: "planted\n" } },
      { tool: "write", write_file: { path: "src/ok.ts", content: "export {};\n" } },
    ]);
    const modules = withNodeModules(box);
    const before = treeState(modules);

    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    expect(lstatSync(path.join(result.runRoot, "node_modules")).isSymbolicLink()).toBe(true);
    const after = treeState(modules);
    for (const cache of [".vite", ".vite/vitest", ".vite/vitest/results.json"]) after.delete(cache);
    expect(after).toEqual(before);
    expect(readFileSync(path.join(result.runRoot, "src/ok.ts"), "utf8")).toBe("export {};\n");
    expect(summary(box, result.adwId)).toEqual([
      `${CHECKOUT}/node_modules/.bin/tool deleted outside_root true`,
      `${CHECKOUT}/node_modules/evil added outside_root true`,
      `${CHECKOUT}/node_modules/left-pad/README.md added outside_root true`,
      `${CHECKOUT}/node_modules/left-pad/index.js modified outside_root true`,
      `${CHECKOUT}/node_modules/left-pad/package.json modified outside_root true`,
    ]);
  });

  it("restores the operator's dirty README.md written through ../ by a write tool, and untracked work", async () => {
    const box = sandbox([
      { tool: "write", write_file: { path: `${CHECKOUT}/README.md`, content: "mine now\n" } },
      { tool: "delete", delete_file: `${CHECKOUT}/scratch/idea.txt` },
    ]);
    operatorWork(box);
    const statusBefore = porcelain(box);

    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    expect(bytes(box, "README.md")?.toString()).toBe("# sandbox, edited by the operator\n");
    expect(bytes(box, "scratch/idea.txt")?.toString()).toBe("untracked idea\n");
    expect(statSync(path.join(box.dir, "scratch/idea.txt")).mode & 0o777).toBe(0o600);
    expect(porcelain(box)).toBe(statusBefore);
    expect(summary(box, result.adwId)).toEqual([
      `${CHECKOUT}/README.md modified outside_root true`,
      `${CHECKOUT}/scratch/idea.txt deleted outside_root true`,
    ]);
    expect(promptPhase(box, result.adwId).error).toContain(
      `${CHECKOUT}/README.md (modified, outside_root) restored`,
    );
    // What the agent wrote is kept, in case it was the operator's: the event and the terminal name it.
    const readme = breachEvents(box, result.adwId).find((e) => e.payload.path === `${CHECKOUT}/README.md`);
    const blob = String(readme?.payload.kept_blob);
    expect(blob).toMatch(/^[0-9a-f]{40}$/);
    expect(git(box.dir, "cat-file", "blob", blob)).toBe("mine now\n");
    expect(result.stdout).toContain(`what it held is kept: git cat-file blob ${blob}`);
  });

  it("restores the operator's checkout written by a shell: dirty, untracked, clean and new files, and a mode", async () => {
    const box = sandbox([
      {
        tool: "bash",
        bash: [
          `cd ${CHECKOUT}`,
          "printf 'shell was here\\n' > README.md",
          "printf 'more\\n' >> scratch/idea.txt",
          "printf 'x\\n' >> docs/guide.md",
          "mkdir -p planted && echo p > planted/file.txt",
          "chmod +x notes/todo.txt",
        ].join(" && "),
      },
    ]);
    operatorWork(box);
    const statusBefore = porcelain(box);

    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    expect(bytes(box, "README.md")?.toString()).toBe("# sandbox, edited by the operator\n");
    expect(bytes(box, "scratch/idea.txt")?.toString()).toBe("untracked idea\n");
    expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
    expect(existsSync(path.join(box.dir, "planted"))).toBe(false);
    expect(statSync(path.join(box.dir, "notes/todo.txt")).mode & 0o777).toBe(0o644);
    expect(porcelain(box)).toBe(statusBefore);
    expect(summary(box, result.adwId)).toEqual([
      `${CHECKOUT}/README.md modified outside_root true`,
      `${CHECKOUT}/docs/guide.md modified outside_root true`,
      `${CHECKOUT}/notes/todo.txt modified outside_root true`,
      `${CHECKOUT}/planted/file.txt added outside_root true`,
      `${CHECKOUT}/scratch/idea.txt modified outside_root true`,
    ]);
  });

  it("fails the phase naming what it could not put back, and why: a linked file too big to have been stored", async () => {
    const box = sandbox([{ tool: "bash", bash: "printf 'tiny\\n' > node_modules/wasm/huge.wasm" }]);
    withNodeModules(box);
    write(box, "node_modules/wasm/huge.wasm", Buffer.alloc(1024 * 1024 + 1, 1));

    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    const [event, ...rest] = breachEvents(box, result.adwId);
    expect(rest).toEqual([]);
    expect(event?.payload).toMatchObject({
      path: `${CHECKOUT}/node_modules/wasm/huge.wasm`,
      change: "modified",
      rule: "outside_root",
      restored: false,
    });
    expect(event?.payload.note).toContain("sssf kept no copy of its content");
    const why = `${CHECKOUT}/node_modules/wasm/huge.wasm (modified, outside_root) NOT restored: sssf kept no copy`;
    expect(promptPhase(box, result.adwId).error).toContain(why);
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stdout).toContain(why);
  });

  it("leaves the operator's own edits, made in the checkout while the agent thinks between tool calls, alone", async () => {
    // The agent thinks for a while before its one tool call: the operator keeps working meanwhile.
    sb = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            delay_ms: 6000,
            tool_calls: [{ tool: "write", write_file: { path: "src/ok.ts", content: "export {};\n" } }],
            reply: done,
          },
        ],
      },
    ]);
    const box = sb;
    operatorWork(box);
    const running = collect(box.start(["run", "prompt", "do it"]));
    while (box.agent("assistant").sends().length === 0) await new Promise((r) => setTimeout(r, 50));
    write(box, "README.md", "# sandbox, edited again while the agent thinks\n");
    write(box, "scratch/later.txt", "a new idea\n");

    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(breachEvents(box, adwIdFrom(result.stdout))).toEqual([]);
    expect(bytes(box, "README.md")?.toString()).toBe("# sandbox, edited again while the agent thinks\n");
    expect(bytes(box, "scratch/later.txt")?.toString()).toBe("a new idea\n");
  });
});
