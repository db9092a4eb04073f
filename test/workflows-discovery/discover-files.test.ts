import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  canonicalWorkflowName,
  listRepoWorkflowFiles,
  workflowNameFromFile,
} from "../../src/workflows/discover-files.js";
import { validateWorkflowModule } from "../../src/workflows/discover-validate.js";
import { builtinWorkflows, findWorkflow, listWorkflows } from "../../src/workflows/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-discover-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (relative: string, content = "export default 1;\n") => {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
};

describe("workflow names", () => {
  it("maps adw_<name> files to dashed names and ignores everything else", () => {
    expect(workflowNameFromFile("adw_build_docs.ts")).toBe("build-docs");
    expect(workflowNameFromFile("adw_build-docs.mjs")).toBe("build-docs");
    expect(workflowNameFromFile("adw_x.js")).toBe("x");
    expect(workflowNameFromFile("adw_x.mts")).toBe("x");
    for (const ignored of [
      "adw_x.d.ts",
      "adw_x.test.ts",
      "adw_X.ts",
      "adw_.ts",
      "x.ts",
      "adw_x.md",
      "adw_x.tsx",
    ]) {
      expect(workflowNameFromFile(ignored), ignored).toBeUndefined();
    }
    expect(canonicalWorkflowName("plan_build_test")).toBe("plan-build-test");
  });

  it("lists only regular workflow files in adws/, sorted, without loading them", () => {
    write("adws/adw_zeta.ts", "this is not even JavaScript");
    write("adws/adw_alpha_one.js");
    write("adws/helpers.ts");
    write("adws/adw_sssf_config/sssf.config.yaml", "agents: []");
    write("adws/nested/adw_deep.ts");
    mkdirSync(path.join(dir, "adws/adw_folder.ts"));
    symlinkSync(path.join(dir, "adws/adw_zeta.ts"), path.join(dir, "adws/adw_link.ts"));
    expect(listRepoWorkflowFiles(dir)).toEqual([
      {
        name: "alpha-one",
        file: path.join(dir, "adws/adw_alpha_one.js"),
        relativePath: "adws/adw_alpha_one.js",
      },
      { name: "zeta", file: path.join(dir, "adws/adw_zeta.ts"), relativePath: "adws/adw_zeta.ts" },
    ]);
  });

  it("a repo without adws/ has no repo-local workflows", () => {
    expect(listRepoWorkflowFiles(dir)).toEqual([]);
    expect(listRepoWorkflowFiles(path.join(dir, "missing"))).toEqual([]);
  });
});

describe("validateWorkflowModule", () => {
  const run = async () => {
    throw new Error("not run");
  };
  const good = { name: "build_docs", description: "d", agents: ["a"], suites: ["test"], phases: ["p"], run };

  it("accepts a default export or a named workflow export whose name spells the file's", () => {
    expect(validateWorkflowModule({ default: good }, "build-docs")).toEqual({ workflow: good, problems: [] });
    expect(
      validateWorkflowModule({ workflow: { ...good, name: "build-docs" } }, "build-docs").problems,
    ).toEqual([]);
  });

  it("names every problem with the export and field", () => {
    const result = validateWorkflowModule(
      { default: { name: "other", description: 3, agents: "a", suites: [1], run: "no" } },
      "build-docs",
    );
    expect(result.workflow).toBeUndefined();
    expect(result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'default export.name: "other" does not match the file name: name it "build-docs" or rename the file',
      "default export.description: expected a string, got 3",
      'default export.agents: expected an array of agent names (strings), got "a"',
      "default export.suites: expected an array of suite names or omitted, got an array",
      'default export.run: expected a function run(run, request), got "no"',
    ]);
  });

  it("explains a module without a workflow export, and a non-object export", () => {
    expect(validateWorkflowModule({ helper: 1 }, "x").problems[0]?.message).toContain(
      "export default defineWorkflow",
    );
    expect(validateWorkflowModule({ default: () => 1 }, "x").problems).toEqual([
      {
        path: "default export",
        message: "expected a workflow object from defineWorkflow({ … }), got a function",
      },
    ]);
  });
});

describe("findWorkflow and listWorkflows without repo-local files", () => {
  it("finds built-ins by either spelling and lists the available names for an unknown one", async () => {
    expect(await findWorkflow("plan_build_test", { repoRoot: dir })).toBe(
      builtinWorkflows.get("plan-build-test"),
    );
    write("adws/adw_mine.ts");
    await expect(findWorkflow("nope", { repoRoot: dir })).rejects.toThrow(
      /unknown workflow "nope" \(available: prompt, .*simple-sdlc, sdd, mine; or write adws\/adw_nope\.ts\)/,
    );
  });

  it("reports two files claiming one name when that name is asked for", async () => {
    write("adws/adw_twice.ts");
    write("adws/adw_twice.js");
    await expect(findWorkflow("twice", { repoRoot: dir })).rejects.toThrow(
      'workflow "twice" is defined by more than one file (adws/adw_twice.js, adws/adw_twice.ts); keep one',
    );
    const listed = await listWorkflows({ repoRoot: dir });
    expect(listed.at(-1)).toMatchObject({ name: "twice", source: "repo", workflow: null });
    expect(listed.at(-1)?.error).toContain("more than one file");
  });

  it("lists the built-ins in their order when no repo root is given", async () => {
    const listed = await listWorkflows();
    expect(listed.map((w) => w.name)).toEqual([...builtinWorkflows.keys()]);
    expect(listed.every((w) => w.source === "built-in" && w.error === null && w.workflow !== null)).toBe(
      true,
    );
  });
});
