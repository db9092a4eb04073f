import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectQualitySuites, packageManager } from "../../src/cli/init/init-detect.js";
import { makefileTargets } from "../../src/cli/init/init-detect-make.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-detect-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (relative: string, content = "") => {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
};
/** Every package manager counts as installed here; the next describe takes them away. */
const everyProgram = () => true;
const suites = () =>
  detectQualitySuites(dir, everyProgram).suites.map((s) => [s.name, s.command.join(" "), s.source]);
const scripts = (map: Record<string, string>) => JSON.stringify({ name: "app", scripts: map });

describe("detectQualitySuites: only a package manager that is installed", () => {
  const only =
    (...names: string[]) =>
    (command: string) =>
      names.includes(command);

  it("the lockfile's manager missing: the first installed one, and a note naming both", () => {
    write("package.json", scripts({ test: "vitest run", lint: "eslint ." }));
    write("pnpm-lock.yaml");
    const detection = detectQualitySuites(dir, only("npm", "yarn"));
    expect(detection.suites.map((s) => s.command.join(" "))).toEqual([
      "npm test -- --reporter=default --reporter=junit --outputFile.junit={report_file}",
      "npm run lint",
    ]);
    expect(detection.notes).toEqual([
      "the lockfile names pnpm, which is not installed (not on PATH): package.json scripts run with npm (install pnpm and edit quality: to use it)",
    ]);
    expect(detectQualitySuites(dir, only("bun")).suites.map((s) => s.command.join(" "))).toEqual([
      "bun run test --reporter=default --reporter=junit --outputFile.junit={report_file}",
      "bun run lint",
    ]);
  });

  it("no package manager at all: no package.json suites, and a note saying to write them", () => {
    write("package.json", scripts({ test: "jest" }));
    write("go.mod", "module app\n");
    const detection = detectQualitySuites(dir, only("go"));
    expect(detection.suites.map((s) => [s.name, s.source])).toEqual([
      ["test", "go.mod"],
      ["lint", "go.mod"],
      ["build", "go.mod"],
    ]);
    expect(detection.notes).toEqual([
      "npm is not installed (not on PATH), nor is pnpm, yarn or bun: package.json scripts not written; add the suite commands under quality: by hand",
    ]);
  });

  it("pyproject.toml: uv.lock without uv installed runs pytest and ruff without it, and says so", () => {
    write("pyproject.toml", '[project]\nname = "app"\n\n[tool.pytest.ini_options]\n\n[tool.ruff]\n');
    write("uv.lock");
    const detection = detectQualitySuites(dir, only("python3"));
    expect(detection.suites.map((s) => s.command.join(" "))).toEqual([
      "python3 -m pytest --junitxml={report_file}",
      "ruff check .",
    ]);
    expect(detection.notes).toEqual([
      "uv.lock names uv, which is not installed (not on PATH): the pyproject.toml suites run without it (install uv and edit quality: to use it)",
    ]);
    expect(detectQualitySuites(dir, only("uv")).suites.map((s) => s.command.join(" "))).toEqual([
      "uv run pytest --junitxml={report_file}",
      "uv run ruff check .",
    ]);
  });

  it("a package.json without suite scripts asks for no package manager", () => {
    write("package.json", scripts({ start: "node ." }));
    expect(detectQualitySuites(dir, only()).notes).toEqual([]);
  });
});

describe("detectQualitySuites", () => {
  it("package.json scripts, run by npm without a lockfile", () => {
    write(
      "package.json",
      scripts({ test: "vitest run", lint: "biome check", "type-check": "tsc", build: "tsc -b" }),
    );
    expect(suites()).toEqual([
      [
        "test",
        "npm test -- --reporter=default --reporter=junit --outputFile.junit={report_file}",
        "package.json",
      ],
      ["lint", "npm run lint", "package.json"],
      ["typecheck", "npm run type-check", "package.json"],
      ["build", "npm run build", "package.json"],
    ]);
  });

  it("the package manager whose lockfile exists, pnpm before yarn before bun", () => {
    write("package.json", scripts({ test: "jest", tsc: "tsc --noEmit" }));
    write("bun.lock");
    expect(packageManager(dir)).toBe("bun");
    expect(suites()).toEqual([
      ["test", "bun run test --json --outputFile={report_file}", "package.json"],
      ["typecheck", "bun run tsc", "package.json"],
    ]);
    write("yarn.lock");
    expect(packageManager(dir)).toBe("yarn");
    write("pnpm-lock.yaml");
    expect(packageManager(dir)).toBe("pnpm");
  });

  it("skips npm's placeholder test script and says so", () => {
    write("package.json", scripts({ test: 'echo "Error: no test specified" && exit 1' }));
    const detection = detectQualitySuites(dir, everyProgram);
    expect(detection.suites).toEqual([]);
    expect(detection.notes).toEqual([expect.stringContaining("placeholder")]);
  });

  it("pyproject.toml: pytest, ruff and mypy from their tool sections", () => {
    write(
      "pyproject.toml",
      '[project]\nname = "app"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.ruff.lint]\nselect = ["E"]\n\n[tool.mypy]\nstrict = true\n',
    );
    const found = suites();
    expect(found.map(([name]) => name)).toEqual(["test", "lint", "typecheck"]);
    expect(found[0]?.[1]).toMatch(/^python3? -m pytest --junitxml=\{report_file\}$/);
    expect(found.slice(1)).toEqual([
      ["lint", "ruff check .", "pyproject.toml"],
      ["typecheck", "mypy .", "pyproject.toml"],
    ]);
  });

  it("pyproject.toml: pytest from a dependency or a tests/ folder, through uv when uv.lock exists", () => {
    write(
      "pyproject.toml",
      '[project]\nname = "app"\n[project.optional-dependencies]\ndev = ["pytest>=8", "pytest-cov"]\n',
    );
    write("uv.lock");
    expect(suites()).toEqual([["test", "uv run pytest --junitxml={report_file}", "pyproject.toml"]]);
    write("pyproject.toml", '[project]\nname = "app"\ndependencies = ["pytest-cov"]\n');
    expect(suites()).toEqual([]);
    write("tests/test_app.py", "def test_ok(): pass\n");
    expect(suites()).toEqual([["test", "uv run pytest --junitxml={report_file}", "pyproject.toml"]]);
  });

  it("Cargo.toml and go.mod", () => {
    write("Cargo.toml", '[package]\nname = "app"\n');
    expect(suites()).toEqual([
      ["test", "cargo test", "Cargo.toml"],
      ["lint", "cargo clippy -- -D warnings", "Cargo.toml"],
      ["build", "cargo build", "Cargo.toml"],
    ]);
    rmSync(path.join(dir, "Cargo.toml"));
    write("go.mod", "module example.com/app\n\ngo 1.22\n");
    expect(suites()).toEqual([
      ["test", "go test -json ./...", "go.mod"],
      ["lint", "go vet ./...", "go.mod"],
      ["build", "go build ./...", "go.mod"],
    ]);
  });

  it("Makefile targets fill the names the ecosystem files left free", () => {
    write("go.mod", "module example.com/app\n");
    write(
      "Makefile",
      ".PHONY: test typecheck\nVERSION := 1\ntypecheck:\n\tstaticcheck ./...\ntest: build\n\tgo test ./...\n",
    );
    expect(suites()).toEqual([
      ["test", "go test -json ./...", "go.mod"],
      ["lint", "go vet ./...", "go.mod"],
      ["build", "go build ./...", "go.mod"],
      ["typecheck", "make typecheck", "Makefile"],
    ]);
  });

  it("per-test reports: JUnit for pytest and vitest, jest's JSON, go test's events; a script that is not a plain runner is left alone with a note", () => {
    const reports = () =>
      detectQualitySuites(dir, everyProgram).suites.map((s) => [s.name, s.report ?? null]);
    write("package.json", scripts({ test: "vitest --run" }));
    expect(reports()).toEqual([["test", { format: "junit" }]]);
    write("package.json", scripts({ test: "jest --ci" }));
    expect(reports()).toEqual([["test", { format: "jest-json" }]]);
    expect(suites()).toEqual([["test", "npm test -- --json --outputFile={report_file}", "package.json"]]);
    write("package.json", scripts({ test: "vitest run --coverage && node check.js" }));
    const detection = detectQualitySuites(dir, everyProgram);
    expect(detection.suites).toEqual([{ name: "test", command: ["npm", "test"], source: "package.json" }]);
    expect(detection.notes).toEqual([
      'package.json "test" runs "vitest run --coverage && node check.js": sssf reads only its exit code; for per-test results add a reporter writing to {report_file} and report: (docs/configuration.md, "Per-test results")',
    ]);
    rmSync(path.join(dir, "package.json"));
    write("pyproject.toml", '[project]\nname = "app"\n\n[tool.pytest.ini_options]\n');
    expect(reports()).toEqual([["test", { format: "junit" }]]);
    rmSync(path.join(dir, "pyproject.toml"));
    write("go.mod", "module example.com/app\n");
    expect(reports()).toEqual([
      ["test", { format: "go-test-json" }],
      ["lint", null],
      ["build", null],
    ]);
  });

  it("nothing detected in an empty repo", () => {
    expect(detectQualitySuites(dir)).toEqual({ suites: [], notes: [] });
  });
});

describe("makefileTargets", () => {
  it("reads target lines and skips recipes, assignments, special targets and patterns", () => {
    const text = [
      "# build things",
      "CC := gcc",
      "FLAGS ?= -O2",
      ".PHONY: all check",
      "all check:: build",
      "%.o: %.c",
      "\techo not-a-target: here",
      "lint :",
      "type-check: ; mypy .",
      "$(OUT): src",
      "",
    ].join("\n");
    expect([...makefileTargets(text)]).toEqual(["all", "check", "lint", "type-check"]);
  });
});
