/**
 * What `sssf init` offers as `quality:` suites, read from the repo's own build files: package.json
 * scripts, pyproject.toml, Cargo.toml, go.mod, then Makefile targets for names still free.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { DetectedSuite } from "./detected-suite.js";
import { makefileSuites } from "./init-detect-make.js";

/** Suites found, and things worth telling the user (a placeholder test script skipped…). */
export interface Detection {
  suites: DetectedSuite[];
  notes: string[];
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const isDirectory = (file: string) => {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
};

/** Whether `command` is an executable on PATH. */
function onPath(command: string): boolean {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      // Not in this directory.
    }
  }
  return false;
}

/** pnpm, yarn, bun or npm: the first whose lockfile exists, npm when none does. */
export function packageManager(repoRoot: string): string {
  const locks: [string, string][] = [
    ["pnpm-lock.yaml", "pnpm"],
    ["yarn.lock", "yarn"],
    ["bun.lockb", "bun"],
    ["bun.lock", "bun"],
  ];
  return locks.find(([file]) => existsSync(path.join(repoRoot, file)))?.[1] ?? "npm";
}

/** Tells whether a program is installed; `onPath` unless a test says otherwise. */
export type IsInstalled = (command: string) => boolean;

/** The managers tried, in order, when the lockfile's is not installed. */
const FALLBACK_MANAGERS = ["npm", "pnpm", "yarn", "bun"];

/**
 * The package manager to run the scripts with: the lockfile's (`packageManager`) when it is installed,
 * else the first installed of npm, pnpm, yarn, bun (with a note saying so), else null (with a note:
 * the user writes the command). A suite naming a missing program would fail every run.
 */
export function installedPackageManager(
  repoRoot: string,
  installed: IsInstalled,
  notes: string[],
): string | null {
  const wanted = packageManager(repoRoot);
  if (installed(wanted)) return wanted;
  const fallback = FALLBACK_MANAGERS.find(installed) ?? null;
  const why =
    wanted === "npm"
      ? "npm is not installed (not on PATH)"
      : `the lockfile names ${wanted}, which is not installed (not on PATH)`;
  notes.push(
    fallback === null
      ? `${why}, nor is pnpm, yarn or bun: package.json scripts not written; add the suite commands under quality: by hand`
      : `${why}: package.json scripts run with ${fallback} (install ${wanted} and edit quality: to use it)`,
  );
  return fallback;
}

/** npm's `npm init` placeholder fails on purpose; running it as a suite would fail every run. */
const PLACEHOLDER_TEST = /no test specified/;

/** Flags a plain runner invocation may carry and still be extended with a reporter. */
const PLAIN_FLAGS: Record<string, readonly string[]> = {
  vitest: ["run", "--run", "--passWithNoTests"],
  jest: ["--ci", "--passWithNoTests"],
};

/** The reporter arguments and format per runner: the whole output stays, a report file is added. */
const RUNNER_REPORTS: Record<string, { args: string[]; report: DetectedSuite["report"] }> = {
  vitest: {
    args: ["--reporter=default", "--reporter=junit", "--outputFile.junit={report_file}"],
    report: { format: "junit" },
  },
  jest: { args: ["--json", "--outputFile={report_file}"], report: { format: "jest-json" } },
};

/** `vitest` or `jest` when the script is that runner and nothing else (a few plain flags), else null. */
function plainRunner(script: string): string | null {
  const [runner, ...rest] = script.trim().split(/\s+/);
  const flags = runner === undefined ? undefined : PLAIN_FLAGS[runner];
  return flags !== undefined && rest.every((arg) => flags.includes(arg)) ? (runner ?? null) : null;
}

/**
 * The `test` suite of a package.json script: with a reporter writing `{report_file}` when the script
 * is a plain vitest or jest invocation (npm passes arguments after `--`, the others as they are),
 * else the script as it is and a note on how to get per-test results.
 */
function testSuite(manager: string, script: string, notes: string[]): DetectedSuite {
  const base = manager === "npm" ? ["npm", "test"] : [manager, "run", "test"];
  const runner = plainRunner(script);
  const wired = runner === null ? undefined : RUNNER_REPORTS[runner];
  if (wired === undefined) {
    notes.push(
      `package.json "test" runs ${JSON.stringify(script)}: sssf reads only its exit code; for per-test results add a reporter writing to {report_file} and report: (docs/configuration.md, "Per-test results")`,
    );
    return { name: "test", command: base, source: "package.json" };
  }
  const command = [...base, ...(manager === "npm" ? ["--"] : []), ...wired.args];
  return { name: "test", command, source: "package.json", ...(wired.report ? { report: wired.report } : {}) };
}

function packageJsonSuites(repoRoot: string, detection: Detection, installed: IsInstalled): DetectedSuite[] {
  const text = readText(path.join(repoRoot, "package.json"));
  if (text === undefined) return [];
  let scripts: Record<string, unknown>;
  try {
    scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
  } catch {
    detection.notes.push("package.json is not valid JSON; its scripts were not read");
    return [];
  }
  const has = (script: string) => typeof scripts[script] === "string";
  if (!["test", "lint", "typecheck", "type-check", "tsc", "build"].some(has)) return [];
  const manager = installedPackageManager(repoRoot, installed, detection.notes);
  if (manager === null) return [];
  // `bun test` is bun's own runner, not the script, so only npm gets the `test` shorthand.
  const run = (script: string) =>
    manager === "npm" && script === "test" ? ["npm", "test"] : [manager, "run", script];
  const suites: DetectedSuite[] = [];
  if (has("test") && PLACEHOLDER_TEST.test(String(scripts.test))) {
    detection.notes.push('package.json "test" is npm\'s placeholder ("no test specified"): not used');
  } else if (has("test")) suites.push(testSuite(manager, String(scripts.test), detection.notes));
  if (has("lint")) suites.push({ name: "lint", command: run("lint"), source: "package.json" });
  const typecheck = ["typecheck", "type-check", "tsc"].find(has);
  if (typecheck) suites.push({ name: "typecheck", command: run(typecheck), source: "package.json" });
  if (has("build")) suites.push({ name: "build", command: run("build"), source: "package.json" });
  return suites;
}

/** uv or poetry when its lockfile exists and it is installed; without it, a note and no runner. */
function pythonRunner(repoRoot: string, installed: IsInstalled, notes: string[]): string[] {
  const lock = ["uv.lock", "poetry.lock"].find((file) => existsSync(path.join(repoRoot, file)));
  if (lock === undefined) return [];
  const tool = lock === "uv.lock" ? "uv" : "poetry";
  if (installed(tool)) return [tool, "run"];
  notes.push(
    `${lock} names ${tool}, which is not installed (not on PATH): the pyproject.toml suites run without it (install ${tool} and edit quality: to use it)`,
  );
  return [];
}

function pyprojectSuites(repoRoot: string, detection: Detection, installed: IsInstalled): DetectedSuite[] {
  const text = readText(path.join(repoRoot, "pyproject.toml"));
  if (text === undefined) return [];
  const section = (name: string) => new RegExp(`^\\s*\\[tool\\.${name}[.\\]]`, "m").test(text);
  // A quoted requirement ("pytest>=8") or a Poetry-style `pytest = "^8"` key.
  const pytestDependency = /["']pytest(?:[\s"'<>=~!;[]|$)/m.test(text) || /^\s*pytest\s*=/m.test(text);
  const wantsTest = section("pytest") || isDirectory(path.join(repoRoot, "tests")) || pytestDependency;
  if (!wantsTest && !section("ruff") && !section("mypy")) return [];
  const runner = pythonRunner(repoRoot, installed, detection.notes);
  const python = installed("python") || !installed("python3") ? "python" : "python3";
  const suites: DetectedSuite[] = [];
  if (wantsTest) {
    const pytest = runner.length > 0 ? [...runner, "pytest"] : [python, "-m", "pytest"];
    // JUnit XML is pytest's own (no plugin): per-test results for the baseline and the fixer.
    const command = [...pytest, "--junitxml={report_file}"];
    suites.push({ name: "test", command, source: "pyproject.toml", report: { format: "junit" } });
  }
  if (section("ruff"))
    suites.push({ name: "lint", command: [...runner, "ruff", "check", "."], source: "pyproject.toml" });
  if (section("mypy"))
    suites.push({ name: "typecheck", command: [...runner, "mypy", "."], source: "pyproject.toml" });
  return suites;
}

function cargoSuites(repoRoot: string): DetectedSuite[] {
  if (!existsSync(path.join(repoRoot, "Cargo.toml"))) return [];
  return [
    { name: "test", command: ["cargo", "test"], source: "Cargo.toml" },
    { name: "lint", command: ["cargo", "clippy", "--", "-D", "warnings"], source: "Cargo.toml" },
    { name: "build", command: ["cargo", "build"], source: "Cargo.toml" },
  ];
}

function goSuites(repoRoot: string): DetectedSuite[] {
  if (!existsSync(path.join(repoRoot, "go.mod"))) return [];
  return [
    // Events on stdout: per-test results, and the suite's tail is rendered from their output.
    {
      name: "test",
      command: ["go", "test", "-json", "./..."],
      source: "go.mod",
      report: { format: "go-test-json" },
    },
    { name: "lint", command: ["go", "vet", "./..."], source: "go.mod" },
    { name: "build", command: ["go", "build", "./..."], source: "go.mod" },
  ];
}

/**
 * Detects quality suites in `repoRoot`. Each source proposes test, lint, typecheck and build where it
 * has them; the first proposal for a name wins, in the order package.json, pyproject.toml,
 * Cargo.toml, go.mod, Makefile. Reads files only, runs nothing; package.json scripts only with a
 * package manager that `installed` finds. Never throws.
 */
export function detectQualitySuites(repoRoot: string, installed: IsInstalled = onPath): Detection {
  const detection: Detection = { suites: [], notes: [] };
  const proposals = [
    ...packageJsonSuites(repoRoot, detection, installed),
    ...pyprojectSuites(repoRoot, detection, installed),
    ...cargoSuites(repoRoot),
    ...goSuites(repoRoot),
    ...makefileSuites(repoRoot),
  ];
  for (const suite of proposals) {
    if (!detection.suites.some((s) => s.name === suite.name)) detection.suites.push(suite);
  }
  return detection;
}
