import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attributeLines,
  type DriverNames,
  marks,
  plantHooks,
  programKeys,
  rawGit,
  type World,
} from "../code/git-plants.js";
import { cliPath } from "../helpers/sandbox.js";

/**
 * sssf itself, through the CLI, with every program-running git key planted: a worktree run whose exec
 * agent edits files (one under a filter driver), its commit phase, `--merge`, a run in place, and
 * `sssf clean`. No marker may appear, and the commits are made with the user's configured identity.
 */

/** Reads its prompt, edits c.txt (filtered) and d.txt, writes out.txt, reports success. */
const AGENT = `import { writeFileSync } from "node:fs";
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  writeFileSync("c.txt", "c.txt by the agent\\n");
  writeFileSync("d.txt", "d.txt by the agent\\n");
  writeFileSync("out-" + Date.now() + ".txt", "written by the agent\\n");
  const text = JSON.stringify({ status: "success", summary: "ok", artifacts: [] });
  process.stdout.write(JSON.stringify({ type: "result", text }) + "\\n");
});
`;

/** An agent phase, then a commit code phase. */
const WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "edit", description: "edit and commit", agents: ["helper"],
  async run(run, request) {
    await run.agent("write", { owner: "helper", description: "write" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const made = await run.code("commit", { owner: "git", description: "commit" }, (phase) =>
      phase.commit("The agent's edit"));
    return run.finish({ accepted: made !== null, reason: made ? "committed" : "nothing to commit" });
  },
});
`;

const LOCATIONS = ["local", "worktree", "global-home", "global-xdg", "include", "includeIf"] as const;
type Location = (typeof LOCATIONS)[number];

interface CliWorld extends World {
  home: string;
  xdg: string;
}

let scratch: string;
let count = 0;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "sssf-git-safety-cli-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function configText(pairs: readonly (readonly [string, string])[]): string {
  const quote = (text: string) => `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  return pairs
    .map(([key, value]) => {
      const first = key.indexOf(".");
      const last = key.lastIndexOf(".");
      const header =
        first === last
          ? `[${key.slice(0, first)}]`
          : `[${key.slice(0, first)} ${quote(key.slice(first + 1, last))}]`;
      return `${header}\n\t${key.slice(last + 1)} = ${quote(value)}\n`;
    })
    .join("");
}

/** The environment sssf runs under: the world's HOME and XDG folder, no system config, no identity variables. */
function envOf(world: CliWorld): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: world.home, XDG_CONFIG_HOME: world.xdg };
  env.GIT_CONFIG_NOSYSTEM = "1";
  for (const name of [
    "GIT_CONFIG_GLOBAL",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
  ])
    delete env[name];
  return env;
}

function git(world: CliWorld, args: string[]): string {
  const saved = { HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME };
  process.env.HOME = world.home;
  process.env.XDG_CONFIG_HOME = world.xdg;
  try {
    return rawGit(world.repo, ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args]);
  } finally {
    process.env.HOME = saved.HOME;
    process.env.XDG_CONFIG_HOME = saved.XDG;
  }
}

/** A repository with an exec agent `helper`, the `edit` workflow and the driver files, committed. */
function makeCliWorld(names: DriverNames, attributes: "tree" | "info"): CliWorld {
  const root = path.join(scratch, `w${count++}`);
  const world: CliWorld = {
    root,
    repo: path.join(root, "repo"),
    bare: path.join(root, "bare.git"),
    marks: path.join(root, "marks"),
    bin: path.join(root, "bin"),
    hooksPathDir: path.join(root, "hooks-path"),
    httpUrl: "http://127.0.0.1:9/x.git",
    home: path.join(root, "home"),
    xdg: path.join(root, "xdg"),
  };
  for (const dir of [world.repo, world.marks, world.bin, world.home, path.join(world.xdg, "git")])
    mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(world.home, ".gitconfig"),
    configText([
      ["user.name", "Config Person"],
      ["user.email", "person@example.com"],
    ]),
  );
  const agent = path.join(root, "agent.mjs");
  writeFileSync(agent, AGENT);
  const prompts = path.join(world.repo, "adws/adw_data/prompt_engineering/helper");
  mkdirSync(prompts, { recursive: true });
  writeFileSync(path.join(prompts, "system.md"), "Do the task, then reply with the JSON report.\n");
  writeFileSync(path.join(prompts, "user.md"), "{{prompt}}\n");
  mkdirSync(path.join(world.repo, "adws/adw_sssf_config"), { recursive: true });
  writeFileSync(
    path.join(world.repo, "adws/adw_sssf_config/sssf.config.yaml"),
    JSON.stringify({
      agents: [{ name: "helper", coding_agent: "exec", command: [process.execPath, agent] }],
    }),
  );
  writeFileSync(path.join(world.repo, "adws/adw_edit.mjs"), WORKFLOW);
  writeFileSync(path.join(world.repo, ".gitignore"), "adws/adw_data/\n");
  for (const file of ["b.txt", "c.txt", "d.txt", "e.txt", "f.txt", "m.txt"])
    writeFileSync(path.join(world.repo, file), `${file} one\n`);
  if (attributes === "tree") writeFileSync(path.join(world.repo, ".gitattributes"), attributeLines(names));
  git(world, ["init", "-q", "-b", "main"]);
  if (attributes === "info")
    writeFileSync(path.join(world.repo, ".git/info/attributes"), attributeLines(names));
  git(world, ["add", "-A"]);
  git(world, ["commit", "-q", "-m", "initial"]);
  return world;
}

function plant(world: CliWorld, location: Location, pairs: readonly (readonly [string, string])[]): void {
  const text = configText(pairs);
  const local = path.join(world.repo, ".git/config");
  if (location === "local") appendFileSync(local, text);
  else if (location === "worktree") {
    appendFileSync(local, "[extensions]\n\tworktreeConfig = true\n");
    appendFileSync(path.join(world.repo, ".git/config.worktree"), text);
  } else if (location === "global-home") appendFileSync(path.join(world.home, ".gitconfig"), text);
  else if (location === "global-xdg") appendFileSync(path.join(world.xdg, "git/config"), text);
  else if (location === "include") {
    writeFileSync(path.join(world.root, "inc.conf"), text);
    appendFileSync(local, configText([["include.path", path.join(world.root, "inc.conf")]]));
  } else {
    writeFileSync(path.join(world.root, "inc-if.conf"), text);
    appendFileSync(
      path.join(world.home, ".gitconfig"),
      configText([[`includeIf.gitdir:${world.repo}/.path`, path.join(world.root, "inc-if.conf")]]),
    );
  }
}

function sssf(world: CliWorld, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: world.repo,
    env: { ...envOf(world), ...extra },
    encoding: "utf8",
    input: "",
    timeout: 120_000,
  });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** Runs sssf's operations; returns the failures (none expected). */
function operate(world: CliWorld, extra: NodeJS.ProcessEnv): string[] {
  const failures: string[] = [];
  const expectOk = (args: string[]) => {
    const result = sssf(world, args, extra);
    if (result.code !== 0)
      failures.push(`sssf ${args.join(" ")} exited ${result.code}: ${result.out.slice(-1500)}`);
  };
  expectOk(["run", "edit", "edit the files", "--merge"]);
  expectOk(["run", "prompt", "hello", "--agent", "helper"]);
  expectOk(["run", "edit", "edit in place", "--in-place"]);
  expectOk(["clean"]);
  return failures;
}

const NAMES: DriverNames = {
  clean: "Clean.Me",
  smudge: "smudge-x",
  process: "proc_1",
  required: "REQ",
  textconv: "text.conv",
  diffCommand: "ext-diff",
  merge: "Merge.Driver.v2",
};

function checkRun(world: CliWorld, extra: NodeJS.ProcessEnv = {}): void {
  expect(operate(world, extra)).toEqual([]);
  expect(marks(world)).toEqual([]);
  // Two commits of the agent's edit on main (the merged worktree run, the in-place run), by the user's identity.
  const log = git(world, ["log", "--format=%s|%an <%ae>|%cn", "main"]).trim().split("\n");
  expect(log.filter((line) => line.startsWith("The agent's edit|"))).toEqual([
    "The agent's edit|Config Person <person@example.com>|Config Person",
    "The agent's edit|Config Person <person@example.com>|Config Person",
  ]);
}

describe("sssf's own git through the CLI runs no planted program", () => {
  it("every key in the repository's config, hooks in .git/hooks and core.hooksPath", () => {
    const world = makeCliWorld(NAMES, "tree");
    plantHooks(world, path.join(world.repo, ".git/hooks"));
    plantHooks(world, world.hooksPathDir, "hooks-path.");
    plant(world, "local", programKeys(world, NAMES));
    checkRun(world);
  }, 300_000);

  it("generated names, locations and subsets of keys", () => {
    const driverName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,9}$/);
    fc.assert(
      fc.property(
        fc.record({
          clean: driverName,
          smudge: driverName,
          process: driverName,
          required: driverName,
          textconv: driverName,
          diffCommand: driverName,
          merge: driverName,
        }),
        fc.constantFrom(...LOCATIONS),
        fc.constantFrom("tree" as const, "info" as const),
        fc.array(fc.nat(), { minLength: 1, maxLength: 16 }),
        (names, location, attributes, picks) => {
          const filters = [names.clean, names.smudge, names.process, names.required];
          fc.pre(new Set(filters.map((name) => name.toLowerCase())).size === filters.length);
          const world = makeCliWorld(names, attributes);
          plantHooks(world, path.join(world.repo, ".git/hooks"));
          plantHooks(world, world.hooksPathDir, "hooks-path.");
          const all = programKeys(world, names);
          // Always the ones sssf's run reaches on every path; then a generated subset of the rest.
          const always = all.filter(([key]) =>
            [
              "core.fsmonitor",
              "core.hooksPath",
              `filter.${names.clean}.clean`,
              `filter.${names.smudge}.smudge`,
            ].includes(key),
          );
          const chosen = [...new Set(picks.map((pick) => pick % all.length))].map(
            (i) => all[i] as [string, string],
          );
          plant(world, location, [...always, ...chosen]);
          checkRun(world);
        },
      ),
      { seed: 3403, numRuns: 4, endOnFailure: true },
    );
  }, 600_000);
});
