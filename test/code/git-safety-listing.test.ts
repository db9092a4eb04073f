import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { forgetRepoFacts, repoFacts } from "../../src/code/git-facts.js";
import { neutralValue, parseConfigListing, viewOf } from "../../src/code/git-safety.js";
import { runGit } from "../../src/code/run-git.js";
import { marker, marks, rawGit, type World } from "./git-plants.js";

import { configText, plantConfig, useGitSafetyWorlds } from "./git-safety-world.js";

const { freshWorld } = useGitSafetyWorlds();

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
