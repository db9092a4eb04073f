import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SssfError } from "../../src/errors/sssf-error.js";
import { loadConfig } from "../../src/library.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
  writePrompts(repo, ["planner"]);
});
afterEach(() => repo.remove());

const withReport = (report: string) =>
  `agents:\n  - name: planner\n    purpose: Plans\nquality:\n  test:\n    command: [pytest, "--junitxml={report_file}"]\n${report}`;

const FORMATS = "junit, tap, jest-json, pytest-json, go-test-json, libtest-json";

describe("quality.<suite>.report", () => {
  it("takes a bare format or { format, file }, and is absent without one", () => {
    repo.writeConfig(withReport(""));
    expect(loadConfig({ cwd: repo.root }).quality.test?.report).toBeUndefined();
    repo.writeConfig(withReport("    report: junit\n"));
    expect(loadConfig({ cwd: repo.root }).quality.test?.report).toEqual({ format: "junit" });
    repo.writeConfig(
      withReport("    report:\n      format: go-test-json\n      file: out/{report_file}.json\n"),
    );
    expect(loadConfig({ cwd: repo.root }).quality.test?.report).toEqual({
      format: "go-test-json",
      file: "out/{report_file}.json",
    });
  });

  it("refuses an unknown format or key with a config_invalid error naming the field and the formats", () => {
    for (const [report, why] of [
      ["    report: xunit\n", `report: expected a report format (${FORMATS}), got "xunit"`],
      ["    report:\n      format: nunit\n", `format: expected a report format (${FORMATS}), got "nunit"`],
      ["    report:\n      format: junit\n      path: x.xml\n", "path"],
      ["    report: 3\n", `expected a report format (${FORMATS}) or { format, file }, got 3`],
    ] as const) {
      repo.writeConfig(withReport(report));
      let caught: unknown;
      try {
        loadConfig({ cwd: repo.root });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SssfError);
      expect((caught as SssfError).code).toBe("config_invalid");
      expect((caught as Error).message).toMatch(/quality\.test\.report/);
      expect((caught as Error).message).toContain(why);
    }
  });
});
