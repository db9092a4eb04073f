/**
 * Plants for the git-safety tests: every config key, environment variable and hook that makes git run
 * a program, each pointed at a marker script (`<root>/bin/<id>`) that touches `<root>/marks/<id>`, and
 * the git commands that would run them. A safe git leaves `marks/` empty; plain git, run as the control,
 * fills it — so the plants are known to be live.
 */
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";

/** Every hook name git 2.39 knows (githooks(5)), and git-p4's. */
export const HOOK_NAMES = [
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-receive",
  "update",
  "proc-receive",
  "post-receive",
  "post-update",
  "reference-transaction",
  "push-to-checkout",
  "pre-auto-gc",
  "post-rewrite",
  "sendemail-validate",
  "fsmonitor-watchman",
  "p4-changelist",
  "p4-prepare-changelist",
  "p4-post-changelist",
  "p4-pre-submit",
  "post-index-change",
];

/** Driver names, one per kind (a file has one filter, one diff and one merge attribute). */
export interface DriverNames {
  clean: string;
  smudge: string;
  process: string;
  required: string;
  textconv: string;
  diffCommand: string;
  merge: string;
}

/** A scratch world: the repository, its remotes, the marker scripts and what to plant. */
export interface World {
  root: string;
  repo: string;
  bare: string;
  marks: string;
  bin: string;
  hooksPathDir: string;
  httpUrl: string;
}

/** A marker script: touches `marks/<id>`; `cat` ones pass their input through (filters, textconv). */
export function marker(world: World, id: string, cat = false): string {
  const file = path.join(world.bin, id);
  const tail = cat ? 'exec cat "$@"' : "exit 0";
  writeFileSync(file, `#!/bin/sh\ntouch '${path.join(world.marks, id)}'\n${tail}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The config every location gets: key → value pairs, in order. Names are the drivers' subsections. */
export function programKeys(world: World, names: DriverNames): [string, string][] {
  const m = (id: string, cat = false) => marker(world, id, cat);
  return [
    ["core.fsmonitor", m("core.fsmonitor")],
    [`filter.${names.clean}.clean`, m("filter.clean", true)],
    [`filter.${names.smudge}.smudge`, m("filter.smudge", true)],
    [`filter.${names.process}.process`, m("filter.process")],
    [`filter.${names.required}.clean`, m("filter.required.clean", true)],
    [`filter.${names.required}.required`, "true"],
    [`diff.${names.textconv}.textconv`, m("diff.textconv", true)],
    [`diff.${names.diffCommand}.command`, m("diff.command")],
    ["diff.external", m("diff.external")],
    [`merge.${names.merge}.driver`, m("merge.driver")],
    ["core.hooksPath", world.hooksPathDir],
    ["core.editor", m("core.editor")],
    ["sequence.editor", m("sequence.editor")],
    ["core.pager", m("core.pager")],
    ["pager.log", m("pager.log")],
    ["core.sshCommand", m("core.sshCommand")],
    ["remote.sshr.url", "ssh://git@127.0.0.1:9/x.git"],
    ["remote.filer.url", `file://${world.bare}`],
    ["remote.filer.uploadpack", m("remote.uploadpack")],
    ["remote.filer.receivepack", m("remote.receivepack")],
    ["protocol.ext.allow", "always"],
    ["remote.extr.url", `ext::${m("protocol.ext")}`],
    ["core.gitProxy", m("core.gitProxy")],
    ["remote.gitr.url", "git://127.0.0.1:9/x.git"],
    ["remote.httpr.url", world.httpUrl],
    ["credential.helper", m("credential.helper")],
    [`credential.${world.httpUrl}.helper`, m("credential.url.helper")],
    ["core.askPass", m("core.askPass")],
    ["commit.gpgSign", "true"],
    ["gpg.program", m("gpg.program")],
    ["gpg.openpgp.program", m("gpg.openpgp.program")],
    ["gpg.ssh.program", m("gpg.ssh.program")],
    ["gpg.x509.program", m("gpg.x509.program")],
    ["gpg.ssh.defaultKeyCommand", m("gpg.ssh.defaultKeyCommand")],
    ["log.showSignature", "true"],
    ["uploadpack.packObjectsHook", m("uploadpack.packObjectsHook")],
    ["core.alternateRefsCommand", m("core.alternateRefsCommand")],
    ["interactive.diffFilter", m("interactive.diffFilter")],
    ["hook.planted.command", m("hook.command")],
    ["hook.planted.event", "pre-commit"],
    ["submodule.recurse", "true"],
    ["difftool.planted.cmd", m("difftool.cmd")],
    ["mergetool.planted.cmd", m("mergetool.cmd")],
    ["tar.planted.command", m("tar.command")],
  ];
}

/** Marks plain git makes in these tests' commands (the control): each plant above that they reach. */
export const CONTROL_MARKS = [
  "core.fsmonitor",
  "filter.clean",
  "filter.smudge",
  "filter.process",
  "filter.required.clean",
  "diff.textconv",
  "diff.command",
  "diff.external",
  "merge.driver",
  "core.editor",
  "sequence.editor",
  "core.sshCommand",
  "remote.uploadpack",
  "remote.receivepack",
  "protocol.ext",
  "core.gitProxy",
  "credential.helper",
  "hook.pre-commit",
  "hook.post-checkout",
  "hook.post-merge",
  "hook.reference-transaction",
];

/** `.gitattributes` lines naming the drivers. */
export function attributeLines(names: DriverNames): string {
  return [
    `c.txt filter=${names.clean}`,
    `b.txt filter=${names.smudge}`,
    `p.txt filter=${names.process}`,
    `r.txt filter=${names.required}`,
    `d.txt diff=${names.textconv}`,
    `e.txt diff=${names.diffCommand}`,
    `m.txt merge=${names.merge}`,
    "",
  ].join("\n");
}

const FILES = ["b.txt", "c.txt", "d.txt", "e.txt", "f.txt", "m.txt"];

/** Plain git with the test's environment (no rule applied): the control, and setup. */
export function rawGit(cwd: string, args: string[], input = ""): string {
  return execFileSync("git", args, {
    cwd,
    input,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
  });
}

/** Plain git, not waiting synchronously (the test's own HTTP server must go on answering). */
export function plainGit(cwd: string, args: string[], input = ""): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      args,
      // EDITOR (the last choice git makes) so no test waits on vi when none is planted.
      { cwd, encoding: "utf8", env: { EDITOR: "true", ...process.env, GIT_TERMINAL_PROMPT: "0" } },
      (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
    );
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(input);
  });
}

/** Writes every hook into `dir`, each touching `hook.<name>` (or `<prefix><name>`). */
export function plantHooks(world: World, dir: string, prefix = "hook."): void {
  mkdirSync(dir, { recursive: true });
  for (const name of HOOK_NAMES) {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\ntouch '${path.join(world.marks, `${prefix}${name}`)}'\nexit 0\n`);
    chmodSync(file, 0o755);
  }
}

/** A repository with one commit of the driver files, a branch `other` for a merge, and a bare remote. */
export function makeWorld(root: string, httpUrl: string): World {
  const world: World = {
    root,
    repo: path.join(root, "repo"),
    bare: path.join(root, "bare.git"),
    marks: path.join(root, "marks"),
    bin: path.join(root, "bin"),
    hooksPathDir: path.join(root, "hooks-path"),
    httpUrl,
  };
  for (const dir of [world.repo, world.marks, world.bin]) mkdirSync(dir, { recursive: true });
  rawGit(root, ["init", "-q", "--bare", world.bare]);
  rawGit(world.repo, ["init", "-q", "-b", "main"]);
  for (const file of FILES) writeFileSync(path.join(world.repo, file), `${file} one\n`);
  rawGit(world.repo, ["add", "-A"]);
  rawGit(world.repo, ["commit", "-q", "-m", "initial"]);
  rawGit(world.repo, ["branch", "other"]);
  return world;
}

/** Where the attributes go: the committed `.gitattributes` or `.git/info/attributes`. */
export function plantAttributes(world: World, names: DriverNames, where: "tree" | "info"): void {
  const text = attributeLines(names);
  if (where === "info") {
    mkdirSync(path.join(world.repo, ".git/info"), { recursive: true });
    writeFileSync(path.join(world.repo, ".git/info/attributes"), text);
  } else {
    writeFileSync(path.join(world.repo, ".gitattributes"), text);
    rawGit(world.repo, ["-c", "core.hooksPath=/dev/null", "add", ".gitattributes"]);
    rawGit(world.repo, [
      "-c",
      "core.hooksPath=/dev/null",
      "-c",
      "commit.gpgSign=false",
      "commit",
      "-q",
      "-m",
      "attributes",
    ]);
  }
}

/** The marks made so far. */
export function marks(world: World): string[] {
  return readdirSync(world.marks).sort();
}

/** A git runner: the rule's (`runGit`) or plain git's; resolves to stdout, rejects when git fails. */
export type Git = (cwd: string, args: string[], input?: string) => Promise<string>;

/** What each step did: true when git succeeded. */
export type Outcomes = Record<string, boolean>;

/**
 * Runs every command that would reach a plant, in `world.repo`: status over a same-size change (the
 * clean filter re-hashes it; fsmonitor), add, three diffs, commit (hooks, gpg, editor), commit-tree,
 * update-ref, worktree add (smudge, post-checkout), merge (merge driver, hooks), rebase -i (sequence
 * editor), log, and the remotes (ssh, file upload-pack and receive-pack, ext, git:// proxy, http
 * credentials) unless `remotes` is false. Returns which steps git completed.
 */
export async function exercise(world: World, git: Git, remotes = true): Promise<Outcomes> {
  const { repo } = world;
  const outcomes: Outcomes = {};
  const step = async (name: string, args: string[], input?: string) => {
    outcomes[name] = await git(repo, args, input).then(
      () => true,
      () => false,
    );
  };
  // Same size, other bytes: the index's stat no longer matches, so git hashes them again.
  for (const file of ["c.txt", "d.txt", "e.txt", "f.txt"])
    writeFileSync(path.join(repo, file), `${file} two\n`);
  // The process and required filters' files are never committed (plain git cannot check them out).
  for (const file of ["p.txt", "r.txt"]) writeFileSync(path.join(repo, file), `${file} new\n`);
  await step("status", ["status", "--porcelain=v2", "-z", "--untracked-files=all"]);
  await step("diff-textconv", ["diff", "--no-ext-diff", "HEAD", "--", "d.txt"]);
  await step("diff-command", ["diff", "HEAD", "--", "e.txt"]);
  await step("diff-external", ["diff", "HEAD", "--", "f.txt"]);
  await step("sssf-diff", ["diff", "--no-ext-diff", "--no-textconv", "--binary", "HEAD"]);
  await step("add-process", ["add", "p.txt"]);
  await step("add-required", ["add", "r.txt"]);
  await step("unstage", ["rm", "-q", "--cached", "--ignore-unmatch", "p.txt", "r.txt"]);
  await step("add", ["add", "c.txt", "d.txt", "e.txt", "f.txt"]);
  await step("commit", ["commit", "-q", "-m", "change"]);
  await step("commit-tree", ["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "tree"]);
  await step("update-ref", ["update-ref", "refs/heads/moved", "HEAD"]);
  writeFileSync(path.join(repo, "f.txt"), "f.txt three\n");
  await step("add-editor", ["add", "f.txt"]);
  await step("commit-editor", ["commit", "-q"]);
  // Without an editor (the rule's) the commit above is abandoned: commit with a message instead.
  await step("commit-after-editor", ["commit", "-q", "-m", "f three"]);
  await step("worktree-add", ["worktree", "add", "-q", path.join(world.root, "wt"), "HEAD"]);
  await step("log", ["log", "-1", "--format=%H"]);
  // A merge with both sides changing m.txt: the merge driver decides it.
  await step("checkout-other", ["checkout", "-q", "other"]);
  writeFileSync(path.join(repo, "m.txt"), "m.txt theirs\n");
  await step("commit-other", ["commit", "-q", "-a", "-m", "theirs"]);
  await step("checkout-main", ["checkout", "-q", "main"]);
  writeFileSync(path.join(repo, "m.txt"), "m.txt ours\n");
  await step("commit-main", ["commit", "-q", "-a", "-m", "ours"]);
  await step("merge", ["merge", "--no-edit", "other"]);
  await step("merge-abort", ["merge", "--abort"]);
  await step("rebase", ["rebase", "-i", "HEAD~1"]);
  await step("rebase-abort", ["rebase", "--abort"]);
  if (!remotes) return outcomes;
  await step("ls-remote-ssh", ["ls-remote", "sshr"]);
  await step("push-file", ["push", "-q", "filer", "HEAD:refs/heads/pushed"]);
  await step("fetch-file", ["fetch", "-q", "filer", "refs/heads/pushed"]);
  await step("ls-remote-ext", ["ls-remote", "extr"]);
  await step("ls-remote-git", ["ls-remote", "gitr"]);
  await step("ls-remote-http", ["ls-remote", "httpr"]);
  return outcomes;
}

/** An HTTP server that answers every request 401 (git then asks credential helpers and askpass). */
export async function unauthorized(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/x.git`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
