import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { forgetRepoFacts, repoFacts } from "../../src/code/git-facts.js";
import { configuredHooksPath, neutralValue, parseConfigListing, viewOf } from "../../src/code/git-safety.js";
import { runGit } from "../../src/code/run-git.js";
import {
  CONTROL_MARKS,
  type DriverNames,
  exercise,
  type Git,
  makeWorld,
  marker,
  marks,
  plainGit,
  plantAttributes,
  plantHooks,
  programKeys,
  rawGit,
  unauthorized,
  type World,
} from "./git-plants.js";

/** Where a plant is written: each file git reads config from, and files those include. */
const LOCATIONS = ["local", "worktree", "global-home", "global-xdg", "include", "includeIf"] as const;
type Location = (typeof LOCATIONS)[number];

/** One config file's text: `[section "sub"]` blocks, values quoted (subsection names taken literally). */
function configText(pairs: readonly (readonly [string, string])[]): string {
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

const sssfGit: Git = (cwd, args, input) => runGit(cwd, args, { input });

let scratch: string;
let server: Awaited<ReturnType<typeof unauthorized>>;
const saved = { ...process.env };
let count = 0;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "sssf-git-safety-"));
  server = await unauthorized();
});
afterAll(async () => {
  await server.close();
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
  return { ...makeWorld(root, server.url), home, xdg };
}

/** Appends `pairs` to the config file `location` stands for (turning on what it needs). */
function plantConfig(
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

const NAMES: DriverNames = {
  clean: "Clean.Me",
  smudge: "smudge-x",
  process: "proc_1",
  required: "REQ",
  textconv: "text.conv",
  diffCommand: "ext-diff",
  merge: "Merge.Driver.v2",
};

/** Steps the rule must leave working: sssf's own commands, and the remotes it can still reach. */
const MUST_WORK = [
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

describe("sssf's git runs no program that config names", () => {
  it.each(LOCATIONS)("planted in %s: no marker, and git still works", async (location) => {
    const world = freshWorld();
    // The listing is taken before the plant, then the plant must be seen.
    await runGit(world.repo, ["status", "--porcelain"]);
    plantAttributes(world, NAMES, location === "local" ? "tree" : "info");
    plantHooks(world, path.join(world.repo, ".git/hooks"));
    plantHooks(world, world.hooksPathDir, "hooks-path.");
    plantConfig(world, location, programKeys(world, NAMES));
    // A push or fetch to a repository on this machine starts that repository's receive-pack or
    // upload-pack, which reads the user's global config and no command-line config (git does not pass
    // it across a local transport): with a plant in the global config, the remote steps are left out
    // (docs/git-safety.md, "What it does not cover").
    const remotes = location !== "global-home" && location !== "global-xdg";
    const outcomes = await exercise(world, sssfGit, remotes);
    expect(marks(world)).toEqual([]);
    for (const step of MUST_WORK)
      if (remotes || !step.endsWith("-file")) expect(outcomes[step], step).toBe(true);
    // The author and committer still come from the user's config.
    expect(rawGit(world.repo, ["log", "-1", "--format=%an <%ae> %cn", "main~1"]).trim()).toBe(
      "Config Person <person@example.com> Config Person",
    );
    // The hooks the user's own git would run are still known (the boundary guards them).
    expect(configuredHooksPath(world.repo)).toBe(world.hooksPathDir);
  });

  it.each(["local", "global-home", "includeIf"] as const)(
    "control: plain git runs the plants in %s (they are live)",
    async (location) => {
      const world = freshWorld();
      plantAttributes(world, NAMES, "tree");
      plantHooks(world, path.join(world.repo, ".git/hooks"));
      // Hooks from .git/hooks: without core.hooksPath pointing elsewhere; unsigned, so commits are made.
      const keys = programKeys(world, NAMES).filter(
        ([key]) => key !== "core.hooksPath" && key !== "commit.gpgSign",
      );
      plantConfig(world, location, keys);
      await exercise(world, plainGit);
      expect(marks(world)).toEqual(expect.arrayContaining(CONTROL_MARKS));
    },
  );

  it("control: plain git runs the core.hooksPath folder's hooks", async () => {
    const world = freshWorld();
    plantHooks(world, world.hooksPathDir, "hooks-path.");
    plantConfig(world, "local", [
      ["core.hooksPath", world.hooksPathDir],
      ["core.editor", "true"],
    ]);
    await exercise(world, plainGit, false);
    expect(marks(world)).toEqual(
      expect.arrayContaining([
        "hooks-path.pre-commit",
        "hooks-path.post-checkout",
        "hooks-path.reference-transaction",
      ]),
    );
  });

  it.each(["gpg.program", "gpg.openpgp.program"])(
    "signing: a commit runs %s under plain git, not under sssf's, and still commits",
    async (key) => {
      const world = freshWorld();
      plantConfig(world, "global-home", [
        ["commit.gpgSign", "true"],
        [key, marker(world, key)],
      ]);
      const args = ["commit", "-q", "--allow-empty", "-m", "signed?"];
      await runGit(world.repo, args);
      expect(rawGit(world.repo, ["log", "-1", "--format=%s"]).trim()).toBe("signed?");
      expect(marks(world)).toEqual([]);
      await plainGit(world.repo, args).catch(() => "");
      expect(marks(world)).toEqual([key]);
    },
  );
});

/** Names a driver can have in both config (any subsection) and attributes (no spaces, no `=`). */
const driverName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,11}$/);

describe("a linked worktree's own config.worktree", () => {
  it("is read by sssf's git there (after a listing without it), and neutralised; plain git runs it", async () => {
    const world = freshWorld();
    const linked = path.join(world.root, "linked");
    rawGit(world.repo, ["worktree", "add", "-q", linked, "HEAD"]);
    await runGit(linked, ["status", "--porcelain"]);
    appendFileSync(path.join(world.repo, ".git/config"), "[extensions]\n\tworktreeConfig = true\n");
    const gitDir = rawGit(linked, ["rev-parse", "--absolute-git-dir"]).trim();
    appendFileSync(
      path.join(gitDir, "config.worktree"),
      configText([
        ["core.fsmonitor", marker(world, "linked.fsmonitor")],
        ["core.hooksPath", world.hooksPathDir],
      ]),
    );
    plantHooks(world, world.hooksPathDir, "hooks-path.");
    writeFileSync(path.join(linked, "c.txt"), "c.txt two\n");
    await runGit(linked, ["status", "--porcelain"]);
    await runGit(linked, ["add", "c.txt"]);
    await runGit(linked, ["commit", "-q", "-m", "linked"]);
    expect(marks(world)).toEqual([]);
    await plainGit(linked, ["status", "--porcelain"]);
    await plainGit(linked, ["commit", "-q", "--allow-empty", "-m", "plain"]);
    expect(marks(world)).toEqual(expect.arrayContaining(["linked.fsmonitor", "hooks-path.pre-commit"]));
  });
});

describe("generated plants", () => {
  it("any driver names, any subset of keys, any location, attributes in the tree or in info", async () => {
    await fc.assert(
      fc.asyncProperty(
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
        fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (names, location, attributes, picks, warm) => {
          // Drivers of one kind share a name only when generated so: the filters must differ per file.
          const filters = [names.clean, names.smudge, names.process, names.required];
          fc.pre(new Set(filters.map((name) => name.toLowerCase())).size === filters.length);
          const world = freshWorld();
          if (warm) await runGit(world.repo, ["status", "--porcelain"]);
          plantAttributes(world, names, attributes);
          plantHooks(world, path.join(world.repo, ".git/hooks"));
          plantHooks(world, world.hooksPathDir, "hooks-path.");
          const all = programKeys(world, names);
          const chosen = [...new Set(picks.map((pick) => pick % all.length))].map(
            (i) => all[i] as [string, string],
          );
          plantConfig(world, location, chosen);
          const outcomes = await exercise(
            world,
            sssfGit,
            location !== "global-home" && location !== "global-xdg",
          );
          expect(marks(world)).toEqual([]);
          for (const step of [
            "status",
            "sssf-diff",
            "add",
            "commit-tree",
            "update-ref",
            "worktree-add",
            "log",
          ])
            expect(outcomes[step], `${step} with ${JSON.stringify(chosen)}`).toBe(true);
        },
      ),
      { seed: 3402, numRuns: 10, endOnFailure: true },
    );
  }, 300_000);
});

describe("environment variables that run programs", () => {
  it("are removed from sssf's git: none runs, where plain git runs them", async () => {
    const world = freshWorld();
    plantAttributes(world, NAMES, "tree");
    const m = (id: string) => marker(world, id);
    const execPath = path.join(world.root, "exec-path");
    mkdirSync(execPath);
    for (const program of ["git-upload-pack", "git-receive-pack"]) {
      writeFileSync(
        path.join(execPath, program),
        `#!/bin/sh\ntouch '${path.join(world.marks, `env.${program}`)}'\n`,
      );
      chmodSync(path.join(execPath, program), 0o755);
    }
    plantConfig(world, "local", [
      ["remote.sshr.url", "ssh://git@127.0.0.1:9/x.git"],
      ["remote.filer.url", `file://${world.bare}`],
      ["remote.extr.url", `ext::${m("env.ext")}`],
      ["remote.gitr.url", "git://127.0.0.1:9/x.git"],
      ["remote.httpr.url", world.httpUrl],
    ]);
    const variables: Record<string, string> = {
      GIT_EXTERNAL_DIFF: m("env.GIT_EXTERNAL_DIFF"),
      GIT_SSH_COMMAND: m("env.GIT_SSH_COMMAND"),
      GIT_EDITOR: m("env.GIT_EDITOR"),
      GIT_SEQUENCE_EDITOR: m("env.GIT_SEQUENCE_EDITOR"),
      GIT_ASKPASS: m("env.GIT_ASKPASS"),
      GIT_PROXY_COMMAND: m("env.GIT_PROXY_COMMAND"),
      GIT_ALLOW_PROTOCOL: "ext:file:ssh:git:http",
      GIT_TEST_FSMONITOR: m("env.GIT_TEST_FSMONITOR"),
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor'='${m("env.GIT_CONFIG_PARAMETERS")}'`,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `filter.${NAMES.clean}.clean`,
      GIT_CONFIG_VALUE_0: marker(world, "env.GIT_CONFIG_COUNT", true),
      GIT_EXEC_PATH: `${execPath}:${rawGit(world.repo, ["--exec-path"]).trim()}`,
      GIT_PAGER: m("env.GIT_PAGER"),
    };
    Object.assign(process.env, variables);
    await exercise(world, sssfGit);
    expect(marks(world)).toEqual([]);

    const control = freshWorld();
    plantAttributes(control, NAMES, "tree");
    plantConfig(control, "local", [
      ["remote.sshr.url", "ssh://git@127.0.0.1:9/x.git"],
      ["remote.filer.url", `file://${world.bare}`],
      ["remote.extr.url", `ext::${m("env.ext")}`],
      ["remote.gitr.url", "git://127.0.0.1:9/x.git"],
    ]);
    Object.assign(process.env, variables);
    await exercise({ ...control, marks: world.marks }, plainGit);
    expect(marks(world)).toEqual(
      expect.arrayContaining([
        "env.GIT_EXTERNAL_DIFF",
        "env.GIT_SSH_COMMAND",
        "env.GIT_EDITOR",
        "env.GIT_SEQUENCE_EDITOR",
        "env.GIT_PROXY_COMMAND",
        "env.ext",
        "env.GIT_CONFIG_PARAMETERS",
        "env.GIT_CONFIG_COUNT",
        "env.git-upload-pack",
      ]),
    );
  });
});

describe("the listing", () => {
  let log: string;
  let world: World & { home: string; xdg: string };
  const listings = () =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("config ")).length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

  beforeEach(() => {
    world = freshWorld();
    const bin = path.join(world.root, "logging-bin");
    mkdirSync(bin);
    log = path.join(world.root, "git.log");
    writeFileSync(log, "");
    const real = rawGit(world.repo, ["--exec-path"]).trim();
    writeFileSync(
      path.join(bin, "git"),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}/git' "$@"\n`,
    );
    chmodSync(path.join(bin, "git"), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH}`;
  });

  it("is kept while no config file changes, and taken again when one does", async () => {
    await settle();
    for (let i = 0; i < 3; i++) await runGit(world.repo, ["rev-parse", "HEAD"]);
    expect(listings()).toBe(1);
    appendFileSync(
      path.join(world.repo, ".git/config"),
      configText([["core.fsmonitor", marker(world, "late")]]),
    );
    await runGit(world.repo, ["status", "--porcelain"]);
    expect(listings()).toBe(2);
    appendFileSync(path.join(world.home, ".gitconfig"), configText([["core.pager", "less"]]));
    await settle();
    await runGit(world.repo, ["status", "--porcelain"]);
    await runGit(world.repo, ["status", "--porcelain"]);
    expect(listings()).toBe(3);
    // A linked worktree without a config of its own shares the checkout's listing.
    await runGit(world.repo, ["worktree", "add", "-q", path.join(world.root, "linked"), "HEAD"]);
    await runGit(path.join(world.root, "linked"), ["status", "--porcelain"]);
    expect(listings()).toBe(3);
    expect(marks(world)).toEqual([]);
  });

  it("is taken for every command while config includes another file", async () => {
    const included = path.join(world.root, "inc.conf");
    writeFileSync(included, "");
    appendFileSync(path.join(world.repo, ".git/config"), configText([["include.path", included]]));
    await settle();
    await runGit(world.repo, ["status", "--porcelain"]);
    // The included file changes without any file the listing came from changing.
    writeFileSync(included, configText([["core.fsmonitor", marker(world, "included")]]));
    await runGit(world.repo, ["status", "--porcelain"]);
    expect(listings()).toBe(2);
    expect(marks(world)).toEqual([]);
  });

  it("a nested repository appearing under a sub-folder is a new config state", async () => {
    const sub = path.join(world.repo, "sub");
    mkdirSync(sub);
    await settle();
    await runGit(sub, ["status", "--porcelain"]);
    rawGit(sub, ["init", "-q"]);
    appendFileSync(path.join(sub, ".git/config"), configText([["core.fsmonitor", marker(world, "nested")]]));
    writeFileSync(path.join(sub, "x.txt"), "x\n");
    await settle();
    await runGit(sub, ["status", "--porcelain"]);
    expect(listings()).toBe(2);
    expect(marks(world)).toEqual([]);
  });
});

describe("neutral values", () => {
  it("every program key has one, other keys none", () => {
    expect(neutralValue("filter.A b.C.clean")).toBe("");
    expect(neutralValue("filter.x.required")).toBe("false");
    expect(neutralValue("core.sshcommand")).toBe("ssh");
    // First value wins for these: the rule passes --upload-pack / --receive-pack instead.
    expect(neutralValue("remote.origin.uploadpack")).toBeNull();
    expect(neutralValue("remote.x.vcs")).toBe("");
    expect(neutralValue("pager.log")).toBe("false");
    expect(neutralValue("user.name")).toBeNull();
    expect(neutralValue("filter.x.smudgex")).toBeNull();
    expect(neutralValue("core.fsmonitorhookversion")).toBeNull();
  });

  it("overrides name each configured key exactly as git listed it, subsection case and dots kept", () => {
    const listing = [
      ["local", "file:.git/config", "filter.Odd.Name.x.clean\nrun-me"],
      ["global", "file:/h/.gitconfig", "diff.Zed.textconv\nrun-me"],
      ["local", "file:.git/config", "core.hookspath\n/some/hooks"],
      ["command", "command line:", "core.fsmonitor\nfalse"],
      ["local", "file:.git/config", "user.name\nx"],
    ]
      .map((entry) => `${entry.join("\0")}\0`)
      .join("");
    const view = viewOf(parseConfigListing(listing));
    expect(view.overrides).toEqual(
      expect.arrayContaining([
        ["filter.Odd.Name.x.clean", ""],
        ["diff.Zed.textconv", ""],
        ["core.hookspath", "/dev/null"],
      ]),
    );
    expect(view.overrides.some(([key]) => key === "user.name")).toBe(false);
    expect(view.hooksPath).toBe("/some/hooks");
  });
});

describe("the hooks the user's own git runs", () => {
  it.each([null, "rel/hooks", "/abs/hooks", "~/my-hooks"])(
    "are what plain git says with core.hooksPath %s, from the top level and a sub-folder",
    async (hooksPath) => {
      const world = freshWorld();
      if (hooksPath !== null) plantConfig(world, "local", [["core.hooksPath", hooksPath]]);
      const sub = path.join(world.repo, "sub");
      mkdirSync(sub);
      for (const dir of [world.repo, sub]) {
        forgetRepoFacts(dir);
        const facts = await repoFacts(dir);
        const plain = rawGit(dir, ["rev-parse", "--path-format=absolute", "--git-path", "hooks"]).trim();
        expect(facts?.hooksDir).toBe(plain);
      }
    },
  );
});
