import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LoadConfigOptions } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors/config-error.js";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
});
afterEach(() => repo.remove());

function loadError(options: Partial<LoadConfigOptions> = {}): ConfigError {
  try {
    loadConfig({ cwd: repo.root, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

/** Writes the default config and the prompts of `agents`, then returns the single expected error. */
function errorFor(yaml: string, agents: readonly string[] = []): ConfigError {
  repo.writeConfig(yaml);
  writePrompts(repo, agents);
  return loadError();
}

describe("schema problems", () => {
  it.each([
    [
      "a writes that is not a list",
      "agents:\n  - name: a\n  - name: b\n  - name: c\n    writes: src/**\n",
      'agents[2].writes: expected a list of paths, got "src/**"',
    ],
    [
      "a misspelt key",
      'agents:\n  - name: a\n    colour: "#fff"\n',
      'agents[0].colour: unknown key (did you mean "color"?)',
    ],
    [
      "a camelCase key",
      "defaults:\n  codingAgent: pi\nagents:\n  - name: a\n",
      'defaults.codingAgent: unknown key (did you mean "coding_agent"?)',
    ],
    ["a key with no near match", "bogus: 1\nagents:\n  - name: a\n", "bogus: unknown key\n"],
    [
      "an unknown thinking level",
      "defaults:\n  thinking: max\nagents:\n  - name: a\n",
      'defaults.thinking: expected one of off, minimal, low, medium, high, xhigh, got "max"',
    ],
    [
      "an agent name that is not a directory name",
      "agents:\n  - name: Build Er\n",
      'agents[0].name: expected a lowercase agent name matching ^[a-z][a-z0-9_-]*$ (it becomes a directory name), got "Build Er"',
    ],
    ["a missing agent name", "agents:\n  - purpose: x\n", "agents[0].name: required"],
    [
      "a bad colour",
      "agents:\n  - name: a\n    color: blue\n",
      'agents[0].color: expected a colour like "#4f9cf9"',
    ],
    ["an empty roster", "agents: []\n", "agents: expected at least one agent"],
    ["no roster", "defaults:\n  model: x\n", "agents: required"],
    [
      "an env value that is not a string",
      "agents:\n  - name: a\n    env: { PORT: 3000 }\n",
      "agents[0].env.PORT: expected a string, got 3000",
    ],
    [
      "a limit out of range",
      "agents:\n  - name: a\nlimits: { retries: 11 }\n",
      "limits.retries: expected at most 10, got 11",
    ],
    [
      "a fractional limit",
      "agents:\n  - name: a\nlimits: { json_fix_attempts: 1.5 }\n",
      "limits.json_fix_attempts: expected an integer, got 1.5",
    ],
    [
      "a negative timeout",
      "agents:\n  - name: a\n    timeouts: { idle_seconds: -1 }\n",
      "agents[0].timeouts.idle_seconds: expected more than 0, got -1",
    ],
    [
      "an empty command",
      "agents:\n  - name: a\n    command: []\n",
      "agents[0].command: expected at least the program to run",
    ],
    [
      "a quality suite without command",
      "agents:\n  - name: a\nquality:\n  test: {}\n",
      "quality.test.command: required",
    ],
    [
      "a bad suite name",
      "agents:\n  - name: a\nquality:\n  Unit Tests: { command: [npm, test] }\n",
      'quality["Unit Tests"]: expected a lowercase suite name',
    ],
  ])("reports %s with its path", (_label, yaml, expected) => {
    const error = errorFor(yaml, ["a", "b", "c"]);
    expect(`${error.message}\n`).toContain(expected);
    expect(error.problems).toHaveLength(1);
  });

  it("reports schema problems and missing prompt files together, in one pass", () => {
    const error = errorFor("agents:\n  - name: a\n    writes: x\n");
    expect(error.problems.map((p) => p.path)).toEqual([
      "agents[0].writes",
      "agents[0].prompt_engineering.system",
      "agents[0].prompt_engineering.user",
    ]);
  });

  it("reports five schema problems in one error", () => {
    const error = errorFor(
      "defaults:\n  thinking: max\nagents:\n  - name: a\n    colour: red\n    writes: x\n  - {}\nlimits: { retries: -1 }\n",
      ["a"],
    );
    expect(error.problems).toHaveLength(5);
    expect(error.problems.map((p) => p.path).sort()).toEqual(
      [
        "agents[0].colour",
        "agents[0].writes",
        "agents[1].name",
        "defaults.thinking",
        "limits.retries",
      ].sort(),
    );
    expect(error.code).toBe("config_invalid");
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain("(5 problems)");
  });
});

describe("semantic problems", () => {
  it("reports a duplicate agent name", () => {
    const error = errorFor("agents:\n  - name: builder\n  - name: builder\n", ["builder"]);
    expect(error.message).toContain('agents[1].name: duplicate agent name "builder" (also agents[0])');
  });

  it("reports a missing prompt file with its absolute path", () => {
    repo.writeConfig("agents:\n  - name: a\n");
    repo.write("adws/adw_data/prompt_engineering/a/system.md", "system");
    const user = path.join(repo.root, "adws/adw_data/prompt_engineering/a/user.md");
    expect(loadError().message).toContain(`agents[0].prompt_engineering.user: file not found: ${user}`);
  });

  it("reports a prompt path that is a directory", () => {
    repo.writeConfig("agents:\n  - name: a\n    prompt_engineering: { system: prompts }\n");
    writePrompts(repo, ["a"]);
    repo.write("prompts/readme.md", "");
    expect(loadError().message).toContain(
      `agents[0].prompt_engineering.system: not a file: ${path.join(repo.root, "prompts")}`,
    );
  });

  it("requires a command for exec agents, also when exec is inherited", () => {
    const error = errorFor(
      "defaults: { coding_agent: exec }\nagents:\n  - { name: a, command: [x] }\n  - { name: b, coding_agent: pi }\n  - { name: c, command: [y] }\n  - { name: d }\n",
      ["a", "b", "c", "d"],
    );
    expect(error.problems).toEqual([
      { path: "agents[3].command", message: "required when coding_agent is exec" },
    ]);
  });

  it("reports an unknown coding agent with the known ones", () => {
    const error = errorFor("agents:\n  - name: a\n    coding_agent: foo\n", ["a"]);
    expect(error.message).toContain(
      'agents[0].coding_agent: unknown coding agent "foo" (known: pi, claude_code, codex, gemini, opencode, exec)',
    );
  });

  it("reports an unknown default runtime once, not once per agent", () => {
    const error = errorFor("defaults: { coding_agent: foo }\nagents:\n  - name: a\n  - name: b\n", [
      "a",
      "b",
    ]);
    expect(error.problems.map((p) => p.path)).toEqual(["defaults.coding_agent"]);
  });

  it("checks runtimes against the caller's list", () => {
    repo.writeConfig("agents:\n  - name: a\n");
    writePrompts(repo, ["a"]);
    expect(loadError({ knownRuntimes: ["exec"] }).message).toContain(
      'defaults.coding_agent: unknown coding agent "pi" (known: exec)',
    );
  });

  it("reports five semantic problems in one error", () => {
    repo.writeConfig(
      "agents:\n  - name: a\n  - name: a\n  - name: b\n    coding_agent: exec\n  - name: c\n    coding_agent: nope\n  - name: d\n",
    );
    writePrompts(repo, ["a", "b", "c"]);
    const error = loadError();
    expect(error.problems.map((p) => p.path)).toEqual([
      "agents[1].name",
      "agents[2].command",
      "agents[3].coding_agent",
      "agents[4].prompt_engineering.system",
      "agents[4].prompt_engineering.user",
    ]);
    expect(error.problems).toHaveLength(5);
  });
});

describe("file and syntax problems", () => {
  it("names the default path and hints sssf init when no config exists", () => {
    const error = loadError();
    const file = path.join(repo.root, "adws/adw_sssf_config/sssf.config.yaml");
    expect(error.file).toBe(file);
    expect(error.message).toContain(`config file not found: ${file}`);
    expect(error.message).toContain('run "sssf init"');
  });

  it("names a missing --config path", () => {
    const error = loadError({ configPath: "missing.yaml" });
    expect(error.message).toContain(`config file not found: ${path.join(repo.root, "missing.yaml")}`);
  });

  it("reports YAML syntax errors with line and column", () => {
    const error = errorFor("agents:\n  - name: a\n    tools: [read, bash\n    writes: []\n");
    expect(error.problems[0]?.message).toMatch(/^line \d+, column \d+: /);
  });

  it("reports a duplicate YAML key with its position", () => {
    const error = errorFor("agents:\n  - name: a\n    name: b\n");
    expect(error.problems).toEqual([{ path: "", message: "line 3, column 5: Map keys must be unique" }]);
  });

  it.each([
    ["an empty file", "", "config file is empty"],
    ["a file of comments", "# nothing yet\n", "config file is empty"],
    [
      "a top-level list",
      "- name: a\n",
      "expected a mapping (defaults, agents, …) at the top level, got a list",
    ],
    [
      "a top-level scalar",
      "agents\n",
      'expected a mapping (defaults, agents, …) at the top level, got "agents"',
    ],
  ])("rejects %s", (_label, yaml, expected) => {
    expect(errorFor(yaml).message).toContain(expected);
  });
});
