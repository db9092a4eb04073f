import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createScriptedAgent, type ScriptedAgent, type ScriptedTurn } from "../../src/testing/index.js";
import { type CliResult, envelopeJson, Sandbox } from "../helpers/sandbox.js";

export const GIT_ENV = {
  GIT_AUTHOR_NAME: "Operator",
  GIT_AUTHOR_EMAIL: "operator@example.test",
  GIT_COMMITTER_NAME: "Operator",
  GIT_COMMITTER_EMAIL: "operator@example.test",
  // The test's own reads must not refresh the index they compare.
  GIT_OPTIONAL_LOCKS: "0",
};

export function git(dir: string, args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
}

/** The suite: passes only when the build's file exists and the linked `node_modules` resolves. */
const CHECK = `import { existsSync } from "node:fs";
import dep from "dep";
if (!existsSync("src/feature.js")) {
  console.log("FAIL src/feature.js missing");
  process.exit(1);
}
console.log("ok 1 feature with " + dep);
`;

const USER = "# Task\n\n{{prompt}}\n\n## previous_envelope\n\n{{previous_envelope}}\n";

/** A builder turn writing `src/feature.js` and rewriting `src/app.js`, claiming both. */
export function buildTurn(label = "feature", commitMessage = "Add the feature"): ScriptedTurn {
  return {
    tool_calls: [
      {
        tool: "write",
        write_file: { path: "src/feature.js", content: `export const feature = "${label}";\n` },
      },
      { tool: "write", write_file: { path: "src/app.js", content: `export const app = "${label}";\n` } },
    ],
    reply: envelopeJson({
      summary: `built ${label}`,
      changed_files: ["src/app.js", "src/feature.js"],
      commit_message: commitMessage,
    }),
  };
}

/**
 * A git repo with one commit, an ignored `node_modules` holding `dep`, a `test` suite, and a scripted
 * builder whose script lives outside the repo (its state files would otherwise change the checkout).
 */
export class WorktreeWorld {
  readonly sb = new Sandbox();
  readonly dir = this.sb.dir;
  builder!: ScriptedAgent;
  base = "";

  constructor(turns: ScriptedTurn[], options: { git?: boolean } = {}) {
    const { dir } = this;
    mkdirSync(path.join(dir, "src"), { recursive: true });
    writeFileSync(path.join(dir, "src/app.js"), 'export const app = "v1";\n');
    writeFileSync(path.join(dir, "src/util.js"), "export const util = 1;\n");
    writeFileSync(path.join(dir, "check.mjs"), CHECK);
    writeFileSync(path.join(dir, ".gitignore"), "node_modules/\nadws/adw_data/\n*.log\n");
    mkdirSync(path.join(dir, "node_modules/dep"), { recursive: true });
    writeFileSync(path.join(dir, "node_modules/dep/package.json"), '{"name":"dep","main":"index.js"}\n');
    writeFileSync(path.join(dir, "node_modules/dep/index.js"), 'module.exports = "dep";\n');
    this.script(turns);
    if (options.git !== false) {
      git(dir, ["init", "-q", "-b", "main"]);
      git(dir, ["add", "-A"]);
      git(dir, ["commit", "-q", "-m", "initial"]);
      this.base = git(dir, ["rev-parse", "HEAD"]).trim();
    }
  }

  /** (Re)writes the builder's script and the config naming it. */
  script(turns: ScriptedTurn[]): void {
    this.builder = createScriptedAgent({ dir: this.sb.agentsDir, name: "builder", turns });
    const prompts = path.join(this.dir, "adws/adw_data/prompt_engineering/builder");
    mkdirSync(prompts, { recursive: true });
    writeFileSync(path.join(prompts, "system.md"), "# builder {{adw_id}}\n");
    writeFileSync(path.join(prompts, "user.md"), USER);
    this.sb.writeConfig({
      agents: [{ name: "builder", ...this.builder.rosterEntry }],
      quality: { test: { command: ["node", "check.mjs"], timeout_seconds: 60 } },
    });
  }

  /** Leaves every kind of operator state: unstaged, staged, untracked and ignored changes. */
  dirtyTheCheckout(): void {
    writeFileSync(path.join(this.dir, "src/app.js"), 'export const app = "operator edit";\n');
    writeFileSync(path.join(this.dir, "src/util.js"), "export const util = 2;\n");
    git(this.dir, ["add", "src/util.js"]);
    writeFileSync(path.join(this.dir, "notes.txt"), "operator notes\n");
    writeFileSync(path.join(this.dir, "debug.log"), "ignored output\n");
  }

  run(args: string[]): Promise<CliResult> {
    return this.sb.run(args, GIT_ENV);
  }

  session(adwId: string): Record<string, unknown> {
    const [row] = this.sb.query<Record<string, unknown>>("SELECT * FROM sessions WHERE adw_id = ?", adwId);
    if (!row) throw new Error(`no session ${adwId}`);
    return row;
  }

  phases(adwId: string): string[] {
    return this.sb
      .query<{ name: string; status: string }>(
        "SELECT name, status FROM phases WHERE adw_id = ? ORDER BY number",
        adwId,
      )
      .map((p) => `${p.name}:${p.status}`);
  }

  worktree(adwId: string): string {
    return path.join(this.dir, "adws/adw_data/.worktrees", adwId);
  }

  cleanup(): void {
    this.sb.cleanup();
  }
}

function hashTree(root: string, dir: string, skip: Set<string>, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    const relative = path.relative(root, full);
    if (skip.has(relative)) continue;
    const stat = lstatSync(full);
    if (stat.isDirectory()) hashTree(root, full, skip, out);
    else if (stat.isSymbolicLink()) out.push(`${relative} -> ${readlinkSync(full)}`);
    else
      out.push(
        `${relative} ${stat.mode.toString(8)} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`,
      );
  }
}

/**
 * Everything of the operator's checkout a run must not touch: every file (tracked, untracked, ignored)
 * outside `.git` and sssf's data dir, the status, HEAD, the index (entries and raw bytes) and every ref
 * except the runs' own `sssf/*` branches and their checkpoints (`refs/sssf/checkpoints/*`).
 */
export function checkoutFingerprint(dir: string): Record<string, unknown> {
  const files: string[] = [];
  hashTree(dir, dir, new Set([".git", "adws/adw_data"]), files);
  const refs = git(dir, ["for-each-ref", "--format=%(refname) %(objectname)"])
    .split("\n")
    .filter(
      (line) =>
        line !== "" && !line.startsWith("refs/heads/sssf/") && !line.startsWith("refs/sssf/checkpoints/"),
    );
  return {
    files,
    status: git(dir, ["status", "--porcelain=v1", "--untracked-files=all", "--ignored"])
      .split("\n")
      .filter((line) => !line.slice(3).startsWith("adws/adw_data/")),
    head: git(dir, ["rev-parse", "HEAD"]).trim(),
    symbolicHead: git(dir, ["symbolic-ref", "-q", "HEAD"]).trim(),
    index: git(dir, ["ls-files", "-s"]),
    indexBytes: createHash("sha256")
      .update(readFileSync(path.join(dir, ".git/index")))
      .digest("hex"),
    refs,
  };
}
