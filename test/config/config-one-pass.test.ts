import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.js";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
});
afterEach(() => repo.remove());

function problemsOf(yaml: string, prompts: readonly string[]): ConfigError["problems"] {
  repo.writeConfig(yaml);
  writePrompts(repo, prompts);
  try {
    loadConfig({ cwd: repo.root });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("every config problem in one pass", () => {
  it("reports a schema error, a missing prompt and a duplicate agent together", () => {
    // agents[0]: a bad colour (schema); agents[1]: no prompts on disk; agents[2]: a duplicate name.
    const problems = problemsOf(
      'agents:\n  - name: builder\n    color: "blue"\n  - name: reviewer\n  - name: builder\n',
      ["builder"],
    );
    const user = path.join(repo.root, "adws/adw_data/prompt_engineering/reviewer/user.md");
    expect(problems.map((p) => p.path)).toEqual([
      "agents[0].color",
      "agents[1].prompt_engineering.system",
      "agents[1].prompt_engineering.user",
      "agents[2].name",
    ]);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath["agents[0].color"]).toContain('expected a colour like "#4f9cf9"');
    expect(byPath["agents[1].prompt_engineering.user"]).toBe(
      `file not found: ${user}; create it ("sssf init" writes the default prompts) or set agents[1].prompt_engineering.user to an existing file`,
    );
    expect(byPath["agents[2].name"]).toBe(
      'duplicate agent name "builder" (also agents[0]); rename one of them, names are unique',
    );
  });

  it("names the file in the message, with every problem's field", () => {
    repo.writeConfig('agents:\n  - name: a\n    colour: "#fff"\n  - name: a\n');
    writePrompts(repo, ["a"]);
    let message = "";
    try {
      loadConfig({ cwd: repo.root });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      `invalid config ${path.join(repo.root, "adws/adw_sssf_config/sssf.config.yaml")} (2 problems)`,
    );
    expect(message).toContain('agents[0].colour: unknown key (did you mean "color"?)');
    expect(message).toContain('agents[1].name: duplicate agent name "a"');
  });

  it("does not report the prompts of an agent whose name the schema refused", () => {
    const problems = problemsOf("agents:\n  - name: Bad Name\n  - name: ok\n    thinking: max\n", ["ok"]);
    expect(problems.map((p) => p.path)).toEqual(["agents[0].name", "agents[1].thinking"]);
  });

  it("does not check prompt files against a data_dir the schema refused", () => {
    const problems = problemsOf("defaults:\n  data_dir: 5\nagents:\n  - name: a\n  - name: a\n", []);
    expect(problems.map((p) => p.path)).toEqual(["defaults.data_dir", "agents[1].name"]);
  });

  it("still reports a broken list item once, without semantic noise under it", () => {
    const problems = problemsOf('agents:\n  - name: a\n    writes: ["src/", 5]\n  - name: b\n', ["a"]);
    expect(problems.map((p) => p.path)).toEqual([
      "agents[0].writes[1]",
      "agents[1].prompt_engineering.system",
      "agents[1].prompt_engineering.user",
    ]);
  });
});
