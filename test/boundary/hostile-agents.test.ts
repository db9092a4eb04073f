/**
 * Agents that try to hide what they wrote, or to write where no walk of the tree looks (issue 34):
 * git's index flags and ignore rules, refs outside the run, special files, hard links, kind changes
 * and floods of files. Through the CLI with the OS sandbox off: the boundary alone must catch them.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  bytes,
  git,
  gitSandbox,
  outsideName,
  porcelain,
  promptPhase,
  runPrompt,
  runPromptInWorktree,
  STARTING_FILES,
  write,
} from "./boundary-fixture.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
const outside: string[] = [];
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
  for (const file of outside.splice(0)) rmSync(file, { recursive: true, force: true });
});

/** A repo whose one agent may write `src/**` and runs `bash` in one tool call. */
function shellAgent(bash: string): Sandbox {
  sb = gitSandbox([
    {
      name: "assistant",
      extra: { writes: ["src/**"] },
      turns: [{ tool_calls: [{ tool: "bash", bash }], reply: done }],
    },
  ]);
  return sb;
}

function summary(box: Sandbox, adwId: string): string[] {
  return breachEvents(box, adwId).map(
    (e) => `${e.payload.path} ${e.payload.change} ${e.payload.rule} ${e.payload.restored}`,
  );
}

/** `git ls-files -v` lines whose tag says skip-worktree (S) or assume-unchanged (lowercase). */
function hiddenInIndex(dir: string): string[] {
  return git(dir, "ls-files", "-v")
    .split("\n")
    .filter((line) => /^(S|[a-z]) /.test(line));
}

/** The ways an agent hides an edit of docs/guide.md and a new docs/hidden.md from `git status`. */
const HIDING: Record<string, string> = {
  skipWorktree: "git update-index --skip-worktree docs/guide.md",
  assumeUnchanged: "git update-index --assume-unchanged docs/guide.md",
  infoExclude: "printf 'docs/hidden.md\\n' >> .git/info/exclude",
  excludesFile: "printf 'docs/hidden.md\\n' > src/ignore && git config core.excludesFile \"$PWD/src/ignore\"",
  nestedGitignore: "printf 'hidden.md\\n' > docs/.gitignore",
  infoAttributes: "printf '*.md -diff\\n' > .git/info/attributes",
};

describe("hiding an edit from git changes nothing", () => {
  it("restores the edit and undoes every hiding operation, whichever are combined (fast-check, fixed seed)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.subarray(Object.keys(HIDING), { minLength: 1 }), async (ops) => {
        const script = [
          "printf 'hidden edit\\n' >> docs/guide.md",
          "printf 'hidden\\n' > docs/hidden.md",
          ...ops.map((op) => HIDING[op] as string),
        ].join(" && ");
        const box = shellAgent(script);
        const configBefore = readFileSync(path.join(box.dir, ".git/config"), "utf8");
        const excludeBefore = readFileSync(path.join(box.dir, ".git/info/exclude"), "utf8");
        try {
          const result = await runPrompt(box);
          expect(result.code).toBe(1);
          expect(promptPhase(box, result.adwId).status).toBe("fail");
          expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
          expect(existsSync(path.join(box.dir, "docs/hidden.md"))).toBe(false);
          expect(existsSync(path.join(box.dir, "docs/.gitignore"))).toBe(false);
          expect(existsSync(path.join(box.dir, ".git/info/attributes"))).toBe(false);
          expect(readFileSync(path.join(box.dir, ".git/info/exclude"), "utf8")).toBe(excludeBefore);
          expect(readFileSync(path.join(box.dir, ".git/config"), "utf8")).toBe(configBefore);
          expect(hiddenInIndex(box.dir)).toEqual([]);
          const paths = breachEvents(box, result.adwId).map((e) => e.payload.path);
          expect(paths).toContain("docs/guide.md");
          expect(paths).toContain("docs/hidden.md");
          if (ops.includes("skipWorktree") || ops.includes("assumeUnchanged"))
            expect(paths).toContain(".git/index");
          if (ops.includes("infoExclude")) expect(paths).toContain(".git/info/exclude");
          if (ops.includes("infoAttributes")) expect(paths).toContain(".git/info/attributes");
          if (ops.includes("excludesFile")) expect(paths).toContain(".git/config");
          if (ops.includes("nestedGitignore")) expect(paths).toContain("docs/.gitignore");
        } finally {
          box.cleanup();
          sb = undefined;
        }
      }),
      { seed: 20261206, numRuns: 5 },
    );
  }, 240_000);
});

/** Shell lines moving refs other than the run's own branch: a commit elsewhere, update-ref, a tag, a deleted branch. */
const MOVE_REFS = [
  "tree=$(git write-tree)",
  "c=$(git -c user.name=A -c user.email=a@example.test commit-tree $tree -p HEAD -m evil)",
  "git update-ref refs/heads/other $c",
  "git update-ref refs/heads/main $c",
  "git tag planted",
  "git branch -D keep",
  "git pack-refs --all",
].join(" && ");

function refsOf(dir: string): string {
  return git(
    dir,
    "for-each-ref",
    "--format=%(refname) %(objectname)",
    "refs/heads/main",
    "refs/heads/other",
    "refs/heads/keep",
    "refs/tags",
  );
}

describe("refs outside the run", () => {
  it("in a worktree run: a commit to main, update-ref, a tag, a deleted branch and packed refs are undone, one event", async () => {
    const box = shellAgent(MOVE_REFS);
    git(box.dir, "branch", "keep");
    git(box.dir, "branch", "other");
    const before = refsOf(box.dir);
    const result = await runPromptInWorktree(box);
    expect(result.code).toBe(1);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    expect(refsOf(box.dir)).toBe(before);
    const refEvents = breachEvents(box, result.adwId).filter((e) => e.payload.path?.includes("refs/"));
    expect(refEvents).toHaveLength(1);
    for (const ref of ["refs/heads/main", "refs/heads/other", "refs/heads/keep", "refs/tags/planted"])
      expect(refEvents[0]?.payload.path).toContain(ref);
    expect(refEvents[0]?.payload.restored).toBe(true);
  });

  it("in place: the same, the checked-out branch being the run's own", async () => {
    const box = shellAgent(
      MOVE_REFS.replace("git update-ref refs/heads/main $c", "git update-ref refs/heads/other2 $c"),
    );
    git(box.dir, "branch", "keep");
    git(box.dir, "branch", "other");
    const before = refsOf(box.dir);
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(refsOf(box.dir)).toBe(before);
    expect(git(box.dir, "branch", "--list", "other2").trim()).toBe("");
    const refEvents = breachEvents(box, result.adwId).filter((e) => e.payload.path?.includes("refs/"));
    expect(refEvents.map((e) => e.payload.path)).toEqual([
      "refs/heads/keep, refs/heads/other, refs/heads/other2, refs/tags/planted",
    ]);
  });
});

const isRoot = process.getuid?.() === 0;

describe("special files, links and kind changes", () => {
  it("never hangs on a FIFO, socket or device where a file was, and removes them", async () => {
    const script = [
      "rm docs/guide.md && mkfifo docs/guide.md",
      "mkfifo src/pipe",
      "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.bind('notes/sock')\"",
      ...(isRoot ? ["mknod src/zero c 1 5"] : []),
    ].join(" && ");
    const box = shellAgent(script);
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
    for (const gone of ["src/pipe", "notes/sock", "src/zero"])
      expect(existsSync(path.join(box.dir, gone))).toBe(false);
    expect(summary(box, result.adwId)).toEqual([
      "docs/guide.md modified outside_writes true",
      "notes/sock added outside_writes true",
      "src/pipe added special_file true",
      // mknod needs root (the tests run as root here and in CI); skipped otherwise.
      ...(isRoot ? ["src/zero added special_file true"] : []),
    ]);
  });

  it("breaks a hard link to a file outside the repository, and removes a symlink out", async () => {
    const secretName = outsideName();
    const box = shellAgent(`ln ../${secretName} src/linked.txt && ln -s /etc/passwd docs/passwd`);
    const secret = path.join(path.dirname(box.dir), secretName);
    outside.push(secret);
    writeFileSync(secret, "outside the repository\n");
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(lstatSync(path.join(box.dir, "src/linked.txt")).nlink).toBe(1);
    expect(statSync(secret).nlink).toBe(1);
    expect(existsSync(path.join(box.dir, "docs/passwd"))).toBe(false);
    expect(summary(box, result.adwId)).toEqual([
      "docs/passwd added outside_writes true",
      "src/linked.txt added hard_link true",
    ]);
  });

  it("puts a file back where a folder took its place, and a folder where a file did", async () => {
    const box = shellAgent(
      "rm notes/todo.txt && mkdir -p notes/todo.txt/deep && echo x > notes/todo.txt/deep/in && rm -rf docs && echo y > docs",
    );
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(bytes(box, "notes/todo.txt")?.toString()).toBe(STARTING_FILES["notes/todo.txt"]);
    expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
    expect(porcelain(box)).toBe("");
    expect(summary(box, result.adwId)).toEqual([
      "docs modified outside_writes true",
      "notes/todo.txt modified outside_writes true",
    ]);
  });

  it("in place, node_modules is summarised: a planted file and a FIFO are removed, a deleted file reported", async () => {
    const box = shellAgent(
      "echo evil > node_modules/dep/evil.js && mkfifo node_modules/dep/pipe && rm node_modules/dep/gone.js",
    );
    write(box, "node_modules/dep/index.js", "module.exports = 1;\n");
    write(box, "node_modules/dep/gone.js", "module.exports = 2;\n");
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(existsSync(path.join(box.dir, "node_modules/dep/evil.js"))).toBe(false);
    expect(existsSync(path.join(box.dir, "node_modules/dep/pipe"))).toBe(false);
    expect(summary(box, result.adwId)).toEqual([
      "node_modules/dep/evil.js added outside_writes true",
      "node_modules/dep/gone.js deleted outside_writes false",
      "node_modules/dep/pipe added outside_writes true",
    ]);
  });

  it("removes 100,000 new files outside the boundary as one breach, and keeps 100,000 inside it", async () => {
    const box = shellAgent(
      "mkdir junk src/gen && (cd junk && seq 100000 | xargs touch) && (cd src/gen && seq 100000 | xargs touch)",
    );
    const started = Date.now();
    const result = await runPrompt(box);
    const ms = Date.now() - started;
    expect(result.code).toBe(1);
    expect(existsSync(path.join(box.dir, "junk"))).toBe(false);
    expect(existsSync(path.join(box.dir, "src/gen/100000"))).toBe(true);
    const events = breachEvents(box, result.adwId);
    expect(events.map((e) => `${e.payload.path} ${e.payload.change} ${e.payload.restored}`)).toEqual([
      "junk added true",
    ]);
    expect(events[0]?.payload.note).toContain("100000 entries");
    // A figure for the report, not a timed assertion (targets live in bench/).
    process.stderr.write(`100,000 + 100,000 new files: the run took ${ms} ms\n`);
  }, 300_000);
});

describe("credentials next to the repository and in the home folder", () => {
  it("are never stored in the object database nor the session folder, harmless agent or not", async () => {
    const marker = `sssf-credential-${process.pid}-${Date.now()}`;
    const netrc = outsideName();
    // The agent reads the credentials and rewrites the one next to the repo with a write tool.
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            tool_calls: [
              {
                tool: "bash",
                bash: `cat ../${netrc} ~/.netrc ~/.git-credentials >/dev/null; echo ok > src/ok.ts`,
              },
              { tool: "write", write_file: { path: `../${netrc}`, content: "overwritten\n" } },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    const parent = path.dirname(box.dir);
    const home = mkdtempSync(path.join(tmpdir(), "sssf-home-"));
    outside.push(path.join(parent, netrc), home);
    writeFileSync(path.join(parent, netrc), `machine example.invalid password ${marker}-parent\n`);
    writeFileSync(
      path.join(parent, ".git-credentials-next"),
      `https://u:${marker}-parent2@example.invalid\n`,
    );
    outside.push(path.join(parent, ".git-credentials-next"));
    writeFileSync(path.join(home, ".netrc"), `machine example.invalid password ${marker}-home\n`);
    writeFileSync(path.join(home, ".git-credentials"), `https://u:${marker}-home2@example.invalid\n`);
    const result = await box.run(["run", "prompt", "do it", "--in-place"], { HOME: home });
    expect(result.code).toBe(1);
    const events = breachEvents(box, adwIdFrom(result.stdout));
    expect(events.map((e) => `${e.payload.path} ${e.payload.change} ${e.payload.restored}`)).toEqual([
      `../${netrc} modified false`,
    ]);
    const objects = execFileSync("git", ["cat-file", "--batch-all-objects", "--batch"], {
      cwd: box.dir,
      maxBuffer: 1 << 30,
    });
    expect(objects.includes(marker)).toBe(false);
    const grep = spawnSync(
      "grep",
      ["-r", "-l", "-a", marker, path.join(box.dir, "adws/adw_data"), path.join(box.dir, ".git")],
      {
        encoding: "utf8",
      },
    );
    expect(grep.stdout).toBe("");
  });
});
