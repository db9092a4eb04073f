import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
  writePrompts(repo, ["planner"]);
});
afterEach(() => repo.remove());

const withMerge = (merge: string) => `agents:\n  - name: planner\n    purpose: Plans\n${merge}`;

describe("merge.strategy", () => {
  it("defaults to ff and takes merge-commit", () => {
    repo.writeConfig(withMerge(""));
    expect(loadConfig({ cwd: repo.root }).merge).toEqual({ strategy: "ff" });
    repo.writeConfig(withMerge("merge:\n  strategy: merge-commit\n"));
    expect(loadConfig({ cwd: repo.root }).merge).toEqual({ strategy: "merge-commit" });
  });

  it("refuses any other value, naming the field and the choices", () => {
    repo.writeConfig(withMerge("merge:\n  strategy: rebase\n"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow(
      /merge\.strategy[\s\S]*expected ff or merge-commit, got "rebase"/,
    );
    repo.writeConfig(withMerge("merge:\n  squash: true\n"));
    expect(() => loadConfig({ cwd: repo.root })).toThrow(/merge[\s\S]*squash/);
  });
});
