/**
 * The demo's scratch repository: an empty (or new) folder becomes a git repo holding the small app,
 * sssf's config and prompts, and the `.gitignore` lines, committed once as the run's base.
 */

import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runGit } from "../code/run-git.js";
import { DEFAULT_CONFIG_PATH, DEFAULT_DATA_DIR } from "../config/config-schema.js";
import { UsageError } from "../errors/usage-error.js";
import { DEFAULT_AGENT_NAMES, defaultPrompts } from "../workflows/prompts/default-prompts.js";
import { DEMO_APP_FILES } from "./demo-app.js";

/** The identity of the base commit when neither the machine nor the repo configures one (as sssf's own commits). */
const SSSF_IDENTITY = {
  GIT_AUTHOR_NAME: "sssf",
  GIT_AUTHOR_EMAIL: "sssf@localhost",
  GIT_COMMITTER_NAME: "sssf",
  GIT_COMMITTER_EMAIL: "sssf@localhost",
};

/**
 * Runs git without a shell; rejects with a GitError whose message ends in the last two lines of git's
 * stderr.
 */
export function demoGit(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return runGit(cwd, args, {
    env,
    message: (_failure, reason) =>
      `git ${args[0]} failed in ${cwd}: ${reason.split("\n").slice(-2).join(" ")}`,
  });
}

/**
 * Checks that `dir` is absent or an empty folder, so the demo can never overwrite anything. Throws
 * UsageError naming `--dir` otherwise.
 */
export function checkDemoDir(dir: string): void {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new UsageError(`--dir: ${dir} is a file, not a folder`, "--dir");
    entries = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (entries.length > 0) {
    throw new UsageError(
      `--dir: ${dir} is not empty (${entries.length} entr${entries.length === 1 ? "y" : "ies"}); sssf demo never overwrites: pass an empty or new folder`,
      "--dir",
    );
  }
}

/** What `sssf init` contributes to the scratch repo: the config text and the `.gitignore` lines. */
export interface DemoInitFiles {
  config: string;
  gitignore: readonly string[];
}

/** Every file of the scratch repo before the run, by repo-relative path. Never throws. */
export function demoRepoFiles(init: DemoInitFiles): Record<string, string> {
  const files: Record<string, string> = { ...DEMO_APP_FILES };
  files[".gitignore"] = `node_modules/\n${init.gitignore.join("\n")}\n`;
  files[DEFAULT_CONFIG_PATH] = init.config;
  for (const agent of DEFAULT_AGENT_NAMES) {
    const prompts = defaultPrompts(agent);
    files[`${DEFAULT_DATA_DIR}/prompt_engineering/${agent}/system.md`] = prompts.system;
    files[`${DEFAULT_DATA_DIR}/prompt_engineering/${agent}/user.md`] = prompts.user;
  }
  return files;
}

/** The identity env for git: none when git already has one, sssf's own otherwise. */
async function identityEnv(root: string): Promise<NodeJS.ProcessEnv> {
  try {
    await demoGit(root, ["var", "GIT_AUTHOR_IDENT"]);
    await demoGit(root, ["var", "GIT_COMMITTER_IDENT"]);
    return {};
  } catch {
    return SSSF_IDENTITY;
  }
}

/**
 * Writes `files` into `dir` (created when absent; it must be empty, see `checkDemoDir`), makes it a
 * git repo on `main` and commits everything once. Returns the base commit. Rejects with a GitError
 * when git is missing or refuses.
 */
export async function createDemoRepo(dir: string, files: Record<string, string>): Promise<string> {
  checkDemoDir(dir);
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(dir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content, { flag: "wx" });
  }
  await demoGit(dir, ["init", "--quiet", "--initial-branch=main"]);
  await demoGit(dir, ["add", "--all"]);
  // The user's hooks and signing setup have no business with a scratch repo's first commit.
  await demoGit(
    dir,
    [
      "-c",
      "commit.gpgsign=false",
      "commit",
      "--quiet",
      "--no-verify",
      "-m",
      "Demo app: string helpers and tests",
    ],
    await identityEnv(dir),
  );
  return (await demoGit(dir, ["rev-parse", "HEAD"])).trim();
}
