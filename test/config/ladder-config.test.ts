import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

// `agents[].models` (docs/reliability.md): the ladder beside `model`, checked at load time.
let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
  writePrompts(repo, ["builder"]);
});
afterEach(() => repo.remove());

const withAgent = (lines: string) =>
  `defaults: { coding_agent: pi, model: base-model }\nagents:\n  - name: builder\n${lines}`;

describe("agents[].models", () => {
  it("starts on models[0]: model is models[0], the ladder kept in order", () => {
    repo.writeConfig(withAgent("    models: [cheap, strong, strongest]\n"));
    const [agent] = loadConfig({ cwd: repo.root }).agents;
    expect(agent).toMatchObject({ model: "cheap", models: ["cheap", "strong", "strongest"] });
  });

  it("accepts model equal to models[0]; one entry is no ladder", () => {
    repo.writeConfig(withAgent("    model: cheap\n    models: [cheap, strong]\n"));
    expect(loadConfig({ cwd: repo.root }).agents[0]).toMatchObject({
      model: "cheap",
      models: ["cheap", "strong"],
    });
    repo.writeConfig(withAgent("    models: [only]\n"));
    const [agent] = loadConfig({ cwd: repo.root }).agents;
    expect(agent?.model).toBe("only");
    expect(agent?.models).toBeUndefined();
  });

  it("without models, model and defaults.model apply as before", () => {
    repo.writeConfig(withAgent("    purpose: builds\n"));
    const [agent] = loadConfig({ cwd: repo.root }).agents;
    expect(agent?.model).toBe("base-model");
    expect(agent).not.toHaveProperty("models");
  });

  it("refuses model that is not models[0], a repeated rung, an empty list and a non-string, naming the field", () => {
    repo.writeConfig(withAgent("    model: strong\n    models: [cheap, strong]\n"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow(
      'agents[0].model: "strong" is not models[0] ("cheap"); a phase starts on models[0]: drop model or make it the first rung',
    );
    repo.writeConfig(withAgent("    models: [cheap, strong, cheap]\n"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow(
      'agents[0].models[2]: "cheap" is already on the ladder; each rung names another model',
    );
    repo.writeConfig(withAgent("    models: []\n"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow("agents[0].models: an empty ladder");
    repo.writeConfig(withAgent("    models: [cheap, 7]\n"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow(/agents\[0\]\.models\[1\]/);
  });
});
