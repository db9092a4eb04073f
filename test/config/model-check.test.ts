/**
 * The models a roster names, checked by the runtimes that can tell (`Runtime.checkModel`) before any
 * agent starts: in process against the real pi catalog (its built-in table and a models.json), and
 * through the built CLI's `sssf doctor` (`npm run build` first): a ladder whose second rung names an
 * unknown pi model is one line naming the agent, the field and the model, exit 2, and pi is never
 * started; a roster of known models goes on to the doctor's checks, which start pi.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { modelProblems, namedModels } from "../../src/config/model-check.js";
import { BUILTIN_RUNTIME_IDS, builtinRuntimes } from "../../src/runtimes/builtins.js";
import { cliPath, collect, repoRoot } from "../helpers/sandbox.js";
import { createTempRepo, type TempRepo, writePrompts } from "./temp-repo.js";

const PI_CLI = path.join(repoRoot, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");

let repo: TempRepo;
let piDir: string;
let marker: string;
let wrapper: string;
beforeEach(() => {
  repo = createTempRepo();
  piDir = path.join(repo.root, "pi-agent");
  mkdirSync(piDir);
  // A provider of the user's own, as pi's models.json declares one.
  const local = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "sk-local" };
  const models = { providers: { local: { ...local, models: [{ id: "cheap" }, { id: "strong" }] } } };
  writeFileSync(path.join(piDir, "models.json"), JSON.stringify(models));
  // pi as `node <wrapper> <pi's cli.js>`: sssf finds pi's package (and catalog) from the cli.js
  // argument, and the wrapper leaves a mark whenever pi is started.
  marker = path.join(repo.root, "pi-started");
  wrapper = path.join(repo.root, "pi-wrapper.mjs");
  writeFileSync(
    wrapper,
    `import { appendFileSync } from "node:fs";\nimport { spawnSync } from "node:child_process";\n` +
      `appendFileSync(${JSON.stringify(marker)}, process.argv.slice(3).join(" ") + "\\n");\n` +
      `const r = spawnSync(process.execPath, process.argv.slice(2), { stdio: "inherit" });\n` +
      `process.exit(r.status ?? 1);\n`,
  );
});
afterEach(() => repo.remove());

/** A roster of pi agents (each `extra` its own keys), plus an exec agent that names models freely. */
function roster(agents: { name: string; extra: Record<string, unknown> }[]): void {
  writePrompts(repo, [...agents.map((a) => a.name), "runner"]);
  const pi = {
    coding_agent: "pi",
    command: [process.execPath, wrapper, PI_CLI],
    env: { PI_CODING_AGENT_DIR: piDir },
  };
  repo.writeConfig(
    JSON.stringify({
      agents: [
        { name: "runner", coding_agent: "exec", command: ["true"], models: ["whatever", "made-up"] },
        ...agents.map((a) => ({ name: a.name, ...pi, ...a.extra })),
      ],
    }),
  );
}

const load = () => loadConfig({ cwd: repo.root, knownRuntimes: BUILTIN_RUNTIME_IDS });

describe("modelProblems", () => {
  it("names every rung, else the model, then the fallback models, with their fields", () => {
    roster([
      { name: "builder", extra: { models: ["local/cheap", "local/strong"], fallback: ["local/cheap"] } },
      { name: "planner", extra: { model: "local/cheap" } },
    ]);
    const config = load();
    expect(config.agents.map((agent, i) => namedModels(agent, i).map((m) => `${m.path}=${m.model}`))).toEqual(
      [
        ["agents[0].models[0]=whatever", "agents[0].models[1]=made-up"],
        [
          "agents[1].models[0]=local/cheap",
          "agents[1].models[1]=local/strong",
          "agents[1].fallback[0]=local/cheap",
        ],
        ["agents[2].model=local/cheap"],
      ],
    );
  });

  it("passes pi models from its built-in catalog and from models.json; exec is never asked", async () => {
    roster([
      { name: "builder", extra: { models: ["local/cheap", "anthropic/claude-sonnet-4-5"] } },
      { name: "planner", extra: { model: "local/strong", fallback: ["cheap"] } },
    ]);
    expect(await modelProblems(load(), builtinRuntimes())).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses an unknown rung, model or fallback model, naming the agent, field and model", async () => {
    roster([
      { name: "builder", extra: { models: ["local/cheap", "local/strongest"] } },
      {
        name: "planner",
        extra: { model: "local/nope", fallback: ["local/strong", "anthropic/claude-nope"] },
      },
    ]);
    const problems = await modelProblems(load(), builtinRuntimes());
    expect(problems.map((p) => p.path)).toEqual([
      "agents[1].models[1]",
      "agents[2].model",
      "agents[2].fallback[1]",
    ]);
    expect(problems[0]?.message).toMatch(/^agent builder: pi has no model "local\/strongest": it is not in /);
    expect(problems[0]?.message).toContain(path.join(piDir, "models.json"));
    expect(problems[1]?.message).toMatch(/^agent planner: pi has no model "local\/nope"/);
    expect(problems[2]?.message).toMatch(/^agent planner: pi has no model "anthropic\/claude-nope"/);
    // Only the agents asked about.
    expect((await modelProblems(load(), builtinRuntimes(), ["planner"])).map((p) => p.path)).toEqual([
      "agents[2].model",
      "agents[2].fallback[1]",
    ]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("runtimes that cannot tell", () => {
  it("claude refuses only what cannot be a model name; any other name is its endpoint's to judge", async () => {
    writePrompts(repo, ["reviewer", "writer"]);
    repo.writeConfig(
      JSON.stringify({
        agents: [
          { name: "reviewer", coding_agent: "claude_code", models: ["sonnet", "claude-made-up-9"] },
          { name: "writer", coding_agent: "claude_code", model: "two words" },
        ],
      }),
    );
    const problems = await modelProblems(load(), builtinRuntimes());
    expect(problems.map((p) => p.path)).toEqual(["agents[1].model"]);
    expect(problems[0]?.message).toMatch(/^agent writer: claude_code: "two words" is not a model name/);
  });
});

/** `sssf doctor` through the built CLI, with an empty HOME. */
const doctor = () => sssf(["doctor"]);

/** `sssf <args>` through the built CLI, with an empty HOME. */
async function sssf(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = mkdtempSync(path.join(tmpdir(), "sssf-model-check-home-"));
  try {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: repo.root,
      env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return await collect(child);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe("sssf doctor checks every model before anything starts", () => {
  it("refuses a ladder naming an unknown pi model: one line, exit 2, pi never started", {
    timeout: 60_000,
  }, async () => {
    roster([{ name: "builder", extra: { models: ["local/cheap", "local/no-such-model"] } }]);
    const result = await doctor();
    expect(result.code).toBe(2);
    const problems = result.stderr.split("\n").filter((line) => line.startsWith("  "));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^ {2}agents\[1\]\.models\[1\]: agent builder: pi has no model "local\/no-such-model": it is not in /,
    );
    expect(result.stdout).toBe("");
    expect(existsSync(marker)).toBe(false);
  });

  it("goes on to the agents' checks when every model is known (which start pi)", {
    timeout: 60_000,
  }, async () => {
    roster([{ name: "builder", extra: { models: ["local/cheap", "anthropic/claude-sonnet-4-5"] } }]);
    const result = await doctor();
    expect(result.stderr).not.toContain("has no model");
    expect(result.stdout).toContain("model");
    expect(result.stdout).toContain("local/cheap");
    expect(existsSync(marker)).toBe(true);
  });
});

describe("sssf run checks the models of the agents it needs before anything starts", () => {
  it("refuses a ladder naming an unknown pi model: one line naming the field, exit 2, pi never started", {
    timeout: 60_000,
  }, async () => {
    roster([{ name: "builder", extra: { models: ["local/cheap", "local/no-such-model"] } }]);
    const result = await sssf(["run", "prompt", "add a line", "--agent", "builder"]);
    expect(result.code, result.stderr).toBe(2);
    const problems = result.stderr.split("\n").filter((line) => line.startsWith("  "));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^ {2}agents\[1\]\.models\[1\]: agent builder: pi has no model "local\/no-such-model"/,
    );
    expect(existsSync(marker)).toBe(false);
  });
});
