/** The worlds the git-safety tests plant config in, and what they plant. */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { runGit } from "../../src/code/run-git.js";
import { type DriverNames, type Git, makeWorld, unauthorized, type World } from "./git-plants.js";

/** Where a plant is written: each file git reads config from, and files those include. */
export const LOCATIONS = ["local", "worktree", "global-home", "global-xdg", "include", "includeIf"] as const;
export type Location = (typeof LOCATIONS)[number];

/** One config file's text: `[section "sub"]` blocks, values quoted (subsection names taken literally). */
export function configText(pairs: readonly (readonly [string, string])[]): string {
  const quote = (text: string) => `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  return pairs
    .map(([key, value]) => {
      const first = key.indexOf(".");
      const last = key.lastIndexOf(".");
      const section = key.slice(0, first);
      const header = first === last ? `[${section}]` : `[${section} ${quote(key.slice(first + 1, last))}]`;
      return `${header}\n\t${key.slice(last + 1)} = ${quote(value)}\n`;
    })
    .join("");
}

export const sssfGit: Git = (cwd, args, input) => runGit(cwd, args, { input });

/** Appends `pairs` to the config file `location` stands for (turning on what it needs). */
export function plantConfig(
  world: World & { home: string; xdg: string },
  location: Location,
  pairs: readonly (readonly [string, string])[],
): void {
  const text = configText(pairs);
  const local = path.join(world.repo, ".git/config");
  switch (location) {
    case "local":
      appendFileSync(local, text);
      break;
    case "worktree":
      appendFileSync(local, "[extensions]\n\tworktreeConfig = true\n");
      appendFileSync(path.join(world.repo, ".git/config.worktree"), text);
      break;
    case "global-home":
      appendFileSync(path.join(world.home, ".gitconfig"), text);
      break;
    case "global-xdg":
      appendFileSync(path.join(world.xdg, "git/config"), text);
      break;
    case "include": {
      const included = path.join(world.root, "included.conf");
      writeFileSync(included, text);
      appendFileSync(local, configText([["include.path", included]]));
      break;
    }
    case "includeIf": {
      const included = path.join(world.root, "included-if.conf");
      writeFileSync(included, text);
      appendFileSync(
        path.join(world.home, ".gitconfig"),
        configText([[`includeIf.gitdir:${world.repo}/.path`, included]]),
      );
      break;
    }
  }
}

export const NAMES: DriverNames = {
  clean: "Clean.Me",
  smudge: "smudge-x",
  process: "proc_1",
  required: "REQ",
  textconv: "text.conv",
  diffCommand: "ext-diff",
  merge: "Merge.Driver.v2",
};

/** Steps the rule must leave working: sssf's own commands, and the remotes it can still reach. */
export const MUST_WORK = [
  "status",
  "sssf-diff",
  "add-process",
  "add-required",
  "add",
  "commit",
  "commit-tree",
  "update-ref",
  "worktree-add",
  "log",
  "fetch-file",
  "push-file",
];

/**
 * Registers the file's hooks (a scratch folder and an unauthorized remote, the environment put back
 * after each test) and returns `freshWorld`: a world with its own HOME and XDG config folder.
 */
export function useGitSafetyWorlds(): { freshWorld: () => World & { home: string; xdg: string } } {
  let scratch = "";
  let server: Awaited<ReturnType<typeof unauthorized>> | undefined;
  const saved = { ...process.env };
  let count = 0;
  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), "sssf-git-safety-"));
    server = await unauthorized();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  /** A fresh world with its own HOME and XDG config folder (the user's global config), no system config. */
  function freshWorld(): World & { home: string; xdg: string } {
    const root = path.join(scratch, `w${count++}`);
    const home = path.join(root, "home");
    const xdg = path.join(root, "xdg");
    mkdirSync(path.join(xdg, "git"), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(
      path.join(home, ".gitconfig"),
      "[user]\n\tname = Config Person\n\temail = person@example.com\n",
    );
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = xdg;
    process.env.GIT_CONFIG_NOSYSTEM = "1";
    delete process.env.GIT_CONFIG_GLOBAL;
    for (const name of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"])
      delete process.env[name];
    return { ...makeWorld(root, (server as { url: string }).url), home, xdg };
  }
  return { freshWorld };
}
