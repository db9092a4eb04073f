import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { configuredHooksPath } from "../../src/code/git-safety.js";
import { runGit } from "../../src/code/run-git.js";
import {
  CONTROL_MARKS,
  exercise,
  marker,
  marks,
  plainGit,
  plantAttributes,
  plantHooks,
  programKeys,
  rawGit,
} from "./git-plants.js";

import {
  configText,
  LOCATIONS,
  MUST_WORK,
  NAMES,
  plantConfig,
  sssfGit,
  useGitSafetyWorlds,
} from "./git-safety-world.js";

const { freshWorld } = useGitSafetyWorlds();

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
