import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boundaryGlobProblem, expandBoundaryGlob } from "../../src/config/boundary-globs.js";
import { ConfigError } from "../../src/errors/config-error.js";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
});
afterEach(() => repo.remove());

function load(yaml: string, agents: readonly string[] = ["a"]) {
  repo.writeConfig(yaml);
  writePrompts(repo, agents);
  return loadConfig({ cwd: repo.root });
}

function problemsOf(yaml: string, agents: readonly string[] = ["a"]): ConfigError["problems"] {
  try {
    load(yaml, agents);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("expandBoundaryGlob", () => {
  it.each([
    ["specs/", "specs/**"],
    ["./specs/", "specs/**"],
    ["././specs//", "specs/**"],
    ["adws/adw_modules/", "adws/adw_modules/**"],
    ["src/**/", "src/**"],
    ["**/node_modules/", "**/node_modules/**"],
    ["**/", "**"],
    ["./", "**"],
    [".", "**"],
    ["./docs/*.md", "docs/*.md"],
    ["  src/** ", "src/**"],
    ["a//b/*.ts", "a/b/*.ts"],
    [".env", ".env"],
    ["src/**", "src/**"],
    [" ", ""],
    ["/", "/"],
  ])("reads %j as %j", (glob, expected) => {
    expect(expandBoundaryGlob(glob)).toBe(expected);
    expect(expandBoundaryGlob(expected)).toBe(expected);
  });
});

describe("boundaryGlobProblem", () => {
  it("accepts relative patterns, trailing slashes and ./ included", () => {
    for (const glob of ["specs/", "./specs/", "./", "src/**", ".env.*", "**/.env", "a..b/*"]) {
      expect(boundaryGlobProblem(glob, "/repo"), glob).toBeUndefined();
    }
  });

  it.each([
    ["/", 'absolute pattern "/": patterns are relative to the repo root; write "**" for the whole repo'],
    ["/src/**", 'absolute pattern "/src/**": patterns are relative to the repo root; write "src/**"'],
    ["/specs/", 'absolute pattern "/specs/": patterns are relative to the repo root; write "specs/**"'],
    [
      "/repo/docs/",
      'absolute pattern "/repo/docs/": patterns are relative to the repo root; write "docs/**"',
    ],
    [
      "/repo",
      'absolute pattern "/repo": patterns are relative to the repo root; write "**" for the whole repo',
    ],
    ["C:/work/src/**", 'absolute pattern "C:/work/src/**": patterns are repo-relative POSIX globs'],
    ["~/notes/**", 'pattern "~/notes/**" names the home folder'],
    ["../shared/**", 'pattern "../shared/**" reaches outside the repo root'],
    ["src/../../x", 'pattern "src/../../x" reaches outside the repo root'],
    [
      "src/../docs/",
      'pattern "src/../docs/" has a ".." segment, which no repo path has, so it would match nothing; write "docs/**"',
    ],
    [" ", "a blank pattern matches nothing; remove it"],
  ])("refuses %j with the fix", (glob, expected) => {
    expect(boundaryGlobProblem(glob, "/repo")).toContain(expected);
  });
});

describe("boundary patterns in the config", () => {
  it("resolves trailing-slash patterns to the folder and everything under it, in writes and protected_files", () => {
    const config = load(
      "defaults:\n  protected_files: [adws/adw_modules/, .env, ./secrets/]\nagents:\n  - name: planner\n    writes: [specs/, ./docs/, ./README.md]\n  - name: all\n    writes: [./]\n",
      ["planner", "all"],
    );
    expect(config.protectedFiles).toEqual(["adws/adw_modules/**", ".env", "secrets/**"]);
    expect(config.agents.map((a) => a.writes)).toEqual([["specs/**", "docs/**", "README.md"], ["**"]]);
  });

  it("protects the repo's own workflows and their modules by default, beside the other defaults", () => {
    const config = load("agents:\n  - name: a\n");
    expect(config.protectedFiles).toEqual([
      ".env",
      ".env.*",
      "adws/adw_sssf_config/**",
      "adws/adw_*.{ts,mts,js,mjs}",
      "adws/adw_modules/**",
      "adws/adw_data/prompt_engineering/**",
    ]);
  });

  it("replaces every default when protected_files is given, which is how a config opts out", () => {
    const config = load("defaults:\n  protected_files: [.env]\nagents:\n  - name: a\n");
    expect(config.protectedFiles).toEqual([".env"]);
  });

  it("refuses absolute and escaping patterns, each at its index with the fix", () => {
    const problems = problemsOf(
      `defaults:\n  protected_files: [.env, /, "  "]\nagents:\n  - name: a\n    writes: [specs/, /src/**, ../shared/**, ${path.join(repo.root, "docs")}/]\n`,
    );
    expect(problems).toEqual([
      {
        path: "defaults.protected_files[1]",
        message:
          'absolute pattern "/": patterns are relative to the repo root; write "**" for the whole repo',
      },
      { path: "defaults.protected_files[2]", message: "a blank pattern matches nothing; remove it" },
      {
        path: "agents[0].writes[1]",
        message: 'absolute pattern "/src/**": patterns are relative to the repo root; write "src/**"',
      },
      { path: "agents[0].writes[2]", message: expect.stringContaining("reaches outside the repo root") },
      {
        path: "agents[0].writes[3]",
        message: expect.stringContaining('patterns are relative to the repo root; write "docs/**"'),
      },
    ]);
  });
});
