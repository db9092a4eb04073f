import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { suggestToolName, unknownToolProblems } from "../../src/config/config-tools.js";
import { ConfigError } from "../../src/errors/config-error.js";
import { loadConfig } from "../../src/library.js";
import { TOOL_NAMES } from "../../src/runtimes/tool-names.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
});
afterEach(() => repo.remove());

const VALID = "the tools are read, bash, edit, write, grep, find, ls";

/** Writes the config and the prompts of `agents`, then loads it. */
function load(yaml: string, agents: readonly string[]) {
  repo.writeConfig(yaml);
  writePrompts(repo, agents);
  return loadConfig({ cwd: repo.root });
}

function problemsOf(yaml: string, agents: readonly string[]): ConfigError["problems"] {
  try {
    load(yaml, agents);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("sssf's tool names", () => {
  it("are pi's seven built-in tools, the default allowlist among them", () => {
    expect(TOOL_NAMES).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
    const config = load("agents:\n  - name: a\n", ["a"]);
    expect(config.agents[0]?.tools.every((tool) => (TOOL_NAMES as readonly string[]).includes(tool))).toBe(
      true,
    );
  });

  it.each([
    ["Reed", "read"],
    ["wirte", "write"],
    ["Read", "read"],
    ["LS", "ls"],
    ["Glob", "find"],
    ["MultiEdit", "edit"],
    ["run_shell_command", "bash"],
    ["list_directory", "ls"],
    ["greps", "grep"],
    ["WebFetch", undefined],
    ["Task", undefined],
  ])("suggest %s → %s", (name, expected) => {
    expect(suggestToolName(name)).toBe(expected);
  });

  it("word one problem per unknown name, with the field, the value, the valid names and a suggestion", () => {
    expect(unknownToolProblems(["read", "Reed", "WebFetch"], "agents[2].tools")).toEqual([
      {
        path: "agents[2].tools[1]",
        message: `unknown tool "Reed" (did you mean "read"?); ${VALID} ([] means none; an exec agent's tools are free-form)`,
      },
      {
        path: "agents[2].tools[2]",
        message: `unknown tool "WebFetch"; ${VALID} ([] means none; an exec agent's tools are free-form)`,
      },
    ]);
  });
});

describe("the config check of tools", () => {
  it("refuses each unknown name of an agent's own list at its index", () => {
    const problems = problemsOf(
      "agents:\n  - name: a\n  - name: b\n  - name: c\n    tools: [Reed, wirte, ls]\n",
      ["a", "b", "c"],
    );
    expect(problems.map((p) => p.path)).toEqual(["agents[2].tools[0]", "agents[2].tools[1]"]);
    expect(problems[0]?.message).toContain('unknown tool "Reed" (did you mean "read"?)');
    expect(problems[0]?.message).toContain(VALID);
    expect(problems[1]?.message).toContain('unknown tool "wirte" (did you mean "write"?)');
  });

  it("reports an unknown name in defaults.tools once, not once per agent inheriting it", () => {
    const problems = problemsOf("defaults:\n  tools: [Glob, read]\nagents:\n  - name: a\n  - name: b\n", [
      "a",
      "b",
    ]);
    expect(problems).toEqual([
      {
        path: "defaults.tools[0]",
        message: expect.stringContaining('unknown tool "Glob" (did you mean "find"?)'),
      },
    ]);
  });

  it("leaves the tools of exec agents free-form: their program defines its own", () => {
    const config = load(
      "defaults:\n  coding_agent: exec\n  tools: [browse]\nagents:\n  - { name: a, command: [x] }\n  - { name: b, coding_agent: pi, tools: [read] }\n  - { name: c, coding_agent: exec, command: [y], tools: [Reed, search] }\n",
      ["a", "b", "c"],
    );
    expect(config.agents.map((a) => a.tools)).toEqual([["browse"], ["read"], ["Reed", "search"]]);
  });

  it("checks defaults.tools when an agent of another runtime inherits it, even if the default is exec", () => {
    const problems = problemsOf(
      "defaults:\n  coding_agent: exec\n  tools: [browse]\nagents:\n  - { name: a, command: [x] }\n  - { name: b, coding_agent: claude_code }\n",
      ["a", "b"],
    );
    expect(problems.map((p) => `${p.path} ${p.message.split(";")[0]}`)).toEqual([
      'defaults.tools[0] unknown tool "browse"',
    ]);
  });

  it("checks the tools of runtimes a caller registers against sssf's names too", () => {
    repo.writeConfig("defaults: { coding_agent: mine }\nagents:\n  - { name: a, tools: [Bash] }\n");
    writePrompts(repo, ["a"]);
    expect(() => loadConfig({ cwd: repo.root, knownRuntimes: ["mine"] })).toThrow(
      'agents[0].tools[0]: unknown tool "Bash" (did you mean "bash"?)',
    );
  });

  it("reports tool problems with every other semantic problem in one pass", () => {
    const problems = problemsOf(
      "agents:\n  - name: a\n    tools: [Reed]\n    writes: [/src/**]\n  - name: a\n  - name: b\n    coding_agent: nope\n    tools: [wirte]\n",
      ["a"],
    );
    expect(problems.map((p) => p.path)).toEqual([
      "agents[0].tools[0]",
      "agents[0].writes[0]",
      "agents[1].name",
      "agents[2].coding_agent",
      "agents[2].tools[0]",
      "agents[2].prompt_engineering.system",
      "agents[2].prompt_engineering.user",
    ]);
  });
});
