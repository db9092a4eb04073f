import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/cli/help-text.js";
import { adwIdFrom, cliPath, envelopeJson, repoRoot, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const version = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")).version as string;

/** Every command `sssf --help` lists, and the flags `sssf run --help` lists. */
async function helpCommands(): Promise<string[]> {
  const help = (await sb.run(["--help"])).stdout;
  const block = help.slice(help.indexOf("Commands:"), help.indexOf("Examples:"));
  return [...block.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1] as string).filter((c) => c !== "help");
}

async function runFlags(): Promise<string[]> {
  const help = (await sb.run(["run", "--help"])).stdout;
  return [...new Set([...help.matchAll(/(--[a-z][a-z-]*)/g)].map((m) => m[1] as string))];
}

describe("sssf -v / -V / --version", () => {
  it("print the version and exit 0", async () => {
    for (const flag of ["-v", "-V", "--version"]) {
      const result = await sb.run([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });
});

describe("sssf completion", () => {
  it("each shell's script contains every command and every flag of run", async () => {
    const commands = await helpCommands();
    expect(commands).toEqual(expect.arrayContaining(["run", "resume", "doctor", "completion", "sessions"]));
    const flags = await runFlags();
    expect(flags).toEqual(
      expect.arrayContaining(["--json", "--agent", "--adw-id", "--fake-script", "--carry-dirty"]),
    );
    for (const shell of ["bash", "zsh", "fish"]) {
      const result = await sb.run(["completion", shell]);
      expect(result.code).toBe(0);
      for (const command of commands) expect(result.stdout, `${shell}: ${command}`).toContain(command);
      for (const flag of flags) {
        const spelled = shell === "fish" ? `-l ${flag.slice(2)}` : flag;
        expect(result.stdout, `${shell}: ${flag}`).toContain(spelled);
      }
      expect(result.stdout).toContain("sssf completion --workflows");
    }
  });

  it("the bash script is valid bash, and completes workflow names through sssf completion --workflows", async () => {
    const script = (await sb.run(["completion", "bash"])).stdout;
    const file = path.join(sb.dir, "sssf.bash");
    writeFileSync(file, script);
    execFileSync("bash", ["-n", file]);
    // Completing `sssf run bu<TAB>` and `sssf doctor --<TAB>` in bash itself, with sssf a function.
    const bin = `sssf() { "${process.execPath}" "${path.join(repoRoot, "dist/cli/main.js")}" "$@"; }`;
    const complete = (words: string[]) =>
      execFileSync(
        "bash",
        [
          "-c",
          `${bin}\nsource "${file}"\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _sssf_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { cwd: sb.dir, encoding: "utf8" },
      )
        .split("\n")
        .filter((w) => w !== "");
    mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
    writeFileSync(path.join(sb.dir, "adws/adw_build_docs.ts"), "export default {};\n");
    expect(complete(["sssf", "run", "bu"])).toEqual(["build", "build-docs", "build-review", "build-test"]);
    expect(complete(["sssf", "doctor", "--r"])).toEqual(["--run-suites"]);
    expect(complete(["sssf", "db", ""])).toEqual(["rebuild", "load", "export", "--help", "-h"]);
    expect(complete(["sssf", "run", "--agent", "x", "pl"])).toEqual([
      "plan",
      "plan-build",
      "plan-build-test",
      "plan-build-test-quality",
    ]);
  });

  it("an unknown shell is a usage error", async () => {
    const result = await sb.run(["completion", "tcsh"]);
    expect(result.code).toBe(2);
  });
});

describe("--help", () => {
  it("sssf run --help has examples, the workflows (repo-local ones too) and the exit codes", async () => {
    mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
    writeFileSync(
      path.join(sb.dir, "adws/adw_ship_it.mjs"),
      'export default { name: "ship-it", description: "Ship the change\\nwith care", agents: [], async run(run) { return run.finish({ accepted: true, reason: "ok" }); } };\n',
    );
    const result = await sb.run(["run", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Examples:\n");
    expect(result.stdout).toContain('sssf run prompt "explain src/index.ts" --agent reviewer');
    expect(result.stdout).toContain("Workflows (");
    expect(result.stdout).toMatch(/\n {2}build-test\s+Implement the request, run the tests/);
    expect(result.stdout).toMatch(/\n {2}ship-it\s+\[repo\] /);
    expect(result.stdout).toContain("Exit codes:\n");
    for (const { code, meaning } of EXIT_CODES)
      expect(result.stdout).toMatch(new RegExp(`\\n {2}${code}\\s+${meaning.replace(/[()]/g, "\\$&")}`));
  });

  it("sssf --help has examples, the workflows and the exit codes", async () => {
    const result = await sb.run(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("-v, --version");
    expect(result.stdout).toContain("Examples:\n");
    expect(result.stdout).toContain("sssf completion bash");
    expect(result.stdout).toMatch(/\n {2}simple-sdlc\s+Plan, build/);
    for (const { code } of EXIT_CODES) expect(result.stdout).toMatch(new RegExp(`\\n {2}${code}\\s`));
  });

  it("sssf --help is sssf help, with forced colour too, and lists a repo's workflows", async () => {
    const flag = await sb.run(["--help"]);
    const commander = await sb.run(["help"]);
    expect(flag.stdout).toBe(commander.stdout);
    // Forced colour: commander renders it (with its escapes or not).
    const coloured = await sb.run(["--help"], { FORCE_COLOR: "1" });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain("Workflows (");
    mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
    writeFileSync(
      path.join(sb.dir, "adws/adw_ship_it.mjs"),
      'export default { name: "ship-it", description: "Ship it", agents: [], async run(run) { return run.finish({ accepted: true, reason: "ok" }); } };\n',
    );
    const withRepoWorkflow = await sb.run(["--help"]);
    expect(withRepoWorkflow.stdout).toMatch(/\n {2}ship-it\s+\[repo\] Ship it/);
    expect(withRepoWorkflow.stdout).toBe((await sb.run(["help"])).stdout);
  });

  it("the binary and the program are CommonJS: neither --help nor --version starts Node's ES module loader", () => {
    // Node's internal modules a process loaded, printed as it exits (a preload: not part of sssf).
    const probe = path.join(sb.dir, "esm-probe.cjs");
    writeFileSync(
      probe,
      'process.on("exit", () => require("node:fs").writeSync(2, "\\nESM:" + process.moduleLoadList.some((m) => m.endsWith("esm/module_job")) + "\\n"));\n',
    );
    const loaderStarted = (args: string[]) => {
      const result = spawnSync(process.execPath, ["-r", probe, cliPath, ...args], {
        cwd: sb.dir,
        encoding: "utf8",
        env: { ...process.env, FORCE_COLOR: "", NO_COLOR: "" },
      });
      expect(result.status, result.stderr).toBe(0);
      return /\nESM:true\n/.test(result.stderr);
    };
    expect(JSON.parse(readFileSync(path.join(repoRoot, "dist/cli/package.json"), "utf8"))).toEqual({
      type: "commonjs",
    });
    // Node 24 loads its ES module machinery for a CommonJS entry too; Node 20 and 22 do not. The
    // program's bundle is CommonJS too: a command that imports no ES module (a repo's workflow) does not.
    const major = Number(process.versions.node.split(".")[0]);
    if (major < 24) expect(loaderStarted(["--help"])).toBe(false);
    if (major < 24) expect(loaderStarted(["--version"])).toBe(false);
  });

  it("README's exit codes are the help's", () => {
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const line = readme.slice(
      readme.indexOf("Exit codes:"),
      readme.indexOf("\n\n", readme.indexOf("Exit codes:")),
    );
    const listed = [...line.matchAll(/`(\d+)`/g)].map((m) => m[1]).sort();
    expect(listed).toEqual(EXIT_CODES.map((e) => e.code).sort());
  });
});

describe("the banner of a rejoined session", () => {
  it("labels this attempt's phases and time apart from the session's totals", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: envelopeJson({ summary: "one" }) }, { reply: envelopeJson({ summary: "two" }) }],
      },
    ]);
    const first = await sb.run(["run", "prompt", "say hi"]);
    const adwId = adwIdFrom(first.stdout);
    expect(first.stdout).not.toContain("this attempt");
    const second = await sb.run(["run", "prompt", "again", "--adw-id", adwId]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/this attempt: 2 phases · \S+ · session total: \S+ · /);
  });
});
