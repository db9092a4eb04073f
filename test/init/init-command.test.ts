import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GITIGNORE_LINES } from "../../src/cli/init/init-files.js";
import { loadConfig } from "../../src/library.js";
import { DEFAULT_AGENT_NAMES, defaultPrompts } from "../../src/workflows/prompts/default-prompts.js";
import { type CliResult, cliPath, collect } from "../helpers/sandbox.js";

// Runs the built CLI (`npm run build` first) against scratch repos under the OS temp dir.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-init-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = "adws/adw_sssf_config/sssf.config.yaml";

function write(relative: string, content = ""): void {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
}

/** PATH for init: a folder holding only `programs` (empty files marked executable: init only looks them up). */
let pathDir: string | undefined;
function pathWith(...programs: string[]): string {
  pathDir = mkdtempSync(path.join(tmpdir(), "sssf-init-path-"));
  for (const program of programs) writeFileSync(path.join(pathDir, program), "", { mode: 0o755 });
  return pathDir;
}
afterEach(() => {
  if (pathDir) rmSync(pathDir, { recursive: true, force: true });
  pathDir = undefined;
});

function init(...args: string[]): Promise<CliResult> {
  return initWith({}, ...args);
}

function initWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return collect(
    spawn(process.execPath, [cliPath, "init", "--cwd", dir, ...args], {
      cwd: tmpdir(),
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

/** Runs init, checks it succeeded, and returns the loaded config's suites as `name: argv`. */
async function initAndLoad(
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; suites: Record<string, string> }> {
  const result = await initWith(env);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const config = loadConfig({ cwd: dir });
  expect(config.agents.map((a) => [a.name, a.writes])).toEqual([
    ["planner", ["specs/**"]],
    ["builder", ["**"]],
    ["scout", []],
    ["reviewer", []],
    ["documenter", ["docs/**", "README.md", "*.md"]],
  ]);
  const suites = Object.fromEntries(Object.values(config.quality).map((s) => [s.name, s.command.join(" ")]));
  return { stdout: result.stdout, suites };
}

describe("sssf init on four ecosystems and a Makefile", () => {
  it("node: package.json scripts run by the lockfile's package manager", async () => {
    write(
      "package.json",
      JSON.stringify({ scripts: { test: "vitest run", lint: "eslint .", typecheck: "tsc" } }),
    );
    write("yarn.lock");
    const { stdout, suites } = await initAndLoad({ PATH: pathWith("yarn", "npm") });
    expect(suites).toEqual({
      test: "yarn run test --reporter=default --reporter=junit --outputFile.junit={report_file}",
      lint: "yarn run lint",
      typecheck: "yarn run typecheck",
    });
    expect(stdout).toContain(
      "quality suites detected:\n  test       yarn run test --reporter=default --reporter=junit --outputFile.junit={report_file}  (package.json)\n",
    );
    expect(loadConfig({ cwd: dir }).quality.test?.report).toEqual({ format: "junit" });
  });

  it("node: the lockfile's package manager is not installed: an installed one, and init says so", async () => {
    write("package.json", JSON.stringify({ scripts: { test: "vitest run" } }));
    write("yarn.lock");
    const { stdout, suites } = await initAndLoad({ PATH: pathWith("npm") });
    expect(suites).toEqual({
      test: "npm test -- --reporter=default --reporter=junit --outputFile.junit={report_file}",
    });
    expect(stdout).toContain(
      "  note: the lockfile names yarn, which is not installed (not on PATH): package.json scripts run with npm (install yarn and edit quality: to use it)\n",
    );
  });

  it("node: no package manager installed: no suite written, and a line saying to add one", async () => {
    write("package.json", JSON.stringify({ scripts: { test: "vitest run" } }));
    const { stdout, suites } = await initAndLoad({ PATH: pathWith() });
    expect(suites).toEqual({});
    expect(stdout).toContain("quality suites: none detected");
    expect(stdout).toContain(
      "package.json scripts not written; add the suite commands under quality: by hand",
    );
  });

  it("python: pyproject.toml", async () => {
    write(
      "pyproject.toml",
      '[project]\nname = "app"\n\n[tool.pytest.ini_options]\n\n[tool.ruff]\nline-length = 100\n\n[tool.mypy]\n',
    );
    const { suites } = await initAndLoad();
    expect(Object.keys(suites)).toEqual(["test", "lint", "typecheck"]);
    expect(suites.test).toMatch(/^python3? -m pytest --junitxml=\{report_file\}$/);
    expect(loadConfig({ cwd: dir }).quality.test?.report).toEqual({ format: "junit" });
    expect(suites.lint).toBe("ruff check .");
    expect(suites.typecheck).toBe("mypy .");
  });

  it("rust: Cargo.toml", async () => {
    write("Cargo.toml", '[package]\nname = "app"\nversion = "0.1.0"\n');
    const { suites } = await initAndLoad();
    expect(suites).toEqual({ test: "cargo test", lint: "cargo clippy -- -D warnings", build: "cargo build" });
  });

  it("go: go.mod", async () => {
    write("go.mod", "module example.com/app\n\ngo 1.22\n");
    const { suites } = await initAndLoad();
    expect(suites).toEqual({ test: "go test -json ./...", lint: "go vet ./...", build: "go build ./..." });
    expect(loadConfig({ cwd: dir }).quality.test?.report).toEqual({ format: "go-test-json" });
  });

  it("make: Makefile targets (GNU check as the test suite)", async () => {
    write("Makefile", "check:\n\t./run-tests.sh\nlint:\n\tshellcheck *.sh\nbuild:\n\tcc -o app app.c\n");
    const { suites } = await initAndLoad();
    expect(suites).toEqual({ test: "make check", lint: "make lint", build: "make build" });
  });

  it("nothing detected: an empty quality block with a commented example, and a warning", async () => {
    const { stdout, suites } = await initAndLoad();
    expect(suites).toEqual({});
    expect(readFileSync(path.join(dir, CONFIG), "utf8")).toMatch(
      /# {3}test:\n# {5}command: \[npm, test\]\n(.*\n)?quality: \{\}\n/,
    );
    expect(stdout).toContain("quality suites: none detected");
    expect(stdout).toContain("refuse to run");
  });
});

describe("what sssf init writes", () => {
  it("the schema line, the roster, prompts with the generated Report, .gitignore, and next steps", async () => {
    const result = await init("--coding-agent", "claude_code", "--model", "sonnet");
    expect(result.code).toBe(0);
    const yaml = readFileSync(path.join(dir, CONFIG), "utf8");
    // The schema sits beside the config: it resolves with no node_modules (global install, Python repo).
    expect(yaml.split("\n")[0]).toBe("# yaml-language-server: $schema=./sssf.config.schema.json");
    const schemaFile = path.join(dir, "adws/adw_sssf_config/sssf.config.schema.json");
    expect(readFileSync(schemaFile, "utf8")).toBe(
      readFileSync(path.join(import.meta.dirname, "../../schema/sssf.config.schema.json"), "utf8"),
    );
    expect(result.stdout).toContain("  created adws/adw_sssf_config/sssf.config.schema.json\n");
    const config = loadConfig({ cwd: dir });
    expect(config.defaults).toMatchObject({ codingAgent: "claude_code", model: "sonnet" });
    for (const agent of DEFAULT_AGENT_NAMES) {
      const promptDir = path.join(dir, "adws/adw_data/prompt_engineering", agent);
      expect(readFileSync(path.join(promptDir, "system.md"), "utf8")).toBe(defaultPrompts(agent).system);
      expect(readFileSync(path.join(promptDir, "user.md"), "utf8")).toBe(defaultPrompts(agent).user);
      expect(result.stdout).toContain(`  created adws/adw_data/prompt_engineering/${agent}/user.md\n`);
    }
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe(`${GITIGNORE_LINES.join("\n")}\n`);
    expect(result.stdout).toContain(`  created ${CONFIG}\n`);
    expect(result.stdout).toContain("  created .gitignore (+3 lines)\n");
    expect(result.stdout).toContain(
      `  git -C ${dir} add adws/adw_sssf_config adws/adw_data/prompt_engineering .gitignore && git -C ${dir} commit -m "Add sssf config and prompts"\n`,
    );
    expect(result.stdout).toContain(`sssf doctor --cwd ${dir}`);
    expect(result.stdout).toContain(`sssf run plan-build-test "<your request>" --cwd ${dir}`);
  });

  it("never overwrites: existing config, prompts and .gitignore stay byte-for-byte, and are reported skipped", async () => {
    const userConfig = "# mine\nagents:\n  - name: solo\n";
    const userPrompt = "my own planner prompt {{prompt}}\n";
    const gitignore = "node_modules\r\nadws/adw_data/*\n/dist"; // CRLF and no final newline, on purpose
    write(CONFIG, userConfig);
    write("adws/adw_data/prompt_engineering/planner/user.md", userPrompt);
    write(".gitignore", gitignore);
    write("package.json", JSON.stringify({ scripts: { test: "node --test" } }));
    const result = await init();
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(dir, CONFIG), "utf8")).toBe(userConfig);
    expect(readFileSync(path.join(dir, "adws/adw_data/prompt_engineering/planner/user.md"), "utf8")).toBe(
      userPrompt,
    );
    expect(readFileSync(path.join(dir, "adws/adw_data/prompt_engineering/planner/system.md"), "utf8")).toBe(
      defaultPrompts("planner").system,
    );
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe(
      `${gitignore}\n${GITIGNORE_LINES.filter((l) => l !== "adws/adw_data/*").join("\n")}\n`,
    );
    expect(result.stdout).toContain(`  skipped ${CONFIG} (exists)\n`);
    expect(result.stdout).toContain("  skipped adws/adw_data/prompt_engineering/planner/user.md (exists)\n");
    expect(result.stdout).toContain("  created adws/adw_data/prompt_engineering/planner/system.md\n");
    expect(result.stdout).toContain("  updated .gitignore (+2 lines)\n");
    expect(result.stdout).toContain("quality suites detected (not written: the config already exists):");

    const before = readFileSync(path.join(dir, ".gitignore"), "utf8");
    const again = await init();
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("created");
    expect(again.stdout).not.toContain("commit what init wrote");
    expect(again.stdout).toContain("  skipped .gitignore (already has the sssf lines)\n");
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe(before);
  });

  it("refreshes a stale config schema (the one file init rewrites) and keeps an old config's schema line loading", async () => {
    const oldLine =
      "# yaml-language-server: $schema=../../node_modules/sssf/schema/sssf.config.schema.json\n";
    write(CONFIG, `${oldLine}agents:\n  - name: solo\n`);
    write("adws/adw_data/prompt_engineering/solo/system.md", "solo\n");
    write("adws/adw_data/prompt_engineering/solo/user.md", "{{prompt}}\n");
    write("adws/adw_sssf_config/sssf.config.schema.json", "{}\n");
    const result = await init();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "  updated adws/adw_sssf_config/sssf.config.schema.json (this sssf's schema)\n",
    );
    expect(
      JSON.parse(readFileSync(path.join(dir, "adws/adw_sssf_config/sssf.config.schema.json"), "utf8"))
        .$schema,
    ).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(readFileSync(path.join(dir, CONFIG), "utf8").startsWith(oldLine)).toBe(true);
    expect(loadConfig({ cwd: dir }).agents.map((a) => a.name)).toEqual(["solo"]);
    const again = await init();
    expect(again.stdout).toContain("  skipped adws/adw_sssf_config/sssf.config.schema.json (up to date)\n");
  });

  it("quotes a --cwd with a space in the git command it prints", async () => {
    const repo = path.join(dir, "my repo");
    mkdirSync(repo);
    const result = await collect(
      spawn(process.execPath, [cliPath, "init", "--cwd", repo], { stdio: ["ignore", "pipe", "pipe"] }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`  git -C '${repo}' add adws/adw_sssf_config`);
  });

  it("leaves a .gitignore that already ignores the whole data dir alone", async () => {
    write(".gitignore", "adws/adw_data/\n");
    const result = await init();
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe("adws/adw_data/\n");
  });

  it("refuses unknown or command-less coding agents and a missing --cwd, writing nothing", async () => {
    for (const [args, message] of [
      [
        ["--coding-agent", "cursor"],
        /--coding-agent: expected one of pi, claude_code, codex, gemini, opencode, got "cursor"/,
      ],
      [["--coding-agent", "exec"], /exec needs a command per agent/],
      [["--model", ""], /--model: expected a model id/],
    ] as const) {
      const result = await init(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(existsSync(path.join(dir, "adws"))).toBe(false);
    const missing = await collect(
      spawn(process.execPath, [cliPath, "init", "--cwd", path.join(dir, "nope")], {
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("is not a directory");
  });
});
