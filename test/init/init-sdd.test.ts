import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/library.js";
import {
  DEFAULT_AGENT_NAMES,
  defaultAgents,
  defaultPrompts,
  sddAgents,
} from "../../src/workflows/prompts/default-prompts.js";
import { SDD_AGENTS } from "../../src/workflows/sdd.js";
import { type CliResult, cliPath, collect } from "../helpers/sandbox.js";

// Runs the built CLI (`npm run build` first) against scratch repos under the OS temp dir.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-init-sdd-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = "adws/adw_sssf_config/sssf.config.yaml";
const PROMPTS = "adws/adw_data/prompt_engineering";

function sssf(...args: string[]): Promise<CliResult> {
  return collect(
    spawn(process.execPath, [cliPath, ...args, "--cwd", dir], {
      cwd: tmpdir(),
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
}

function write(relative: string, content: string): void {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
}

const read = (relative: string) => readFileSync(path.join(dir, relative), "utf8");

/** The `missing_agents` of the sdd row of `sssf list --json`. */
async function sddMissing(): Promise<string[] | null> {
  const listed = await sssf("list", "--json");
  expect(listed.code).toBe(0);
  const rows = JSON.parse(listed.stdout).workflows as { name: string; missing_agents: string[] | null }[];
  return rows.find((row) => row.name === "sdd")?.missing_agents ?? null;
}

/** The YAML lines the output prints after "as these lines:", up to the blank line before next steps. */
function snippetOf(stdout: string): string {
  const start = stdout.indexOf("as these lines:\n\n");
  expect(start).toBeGreaterThan(0);
  const rest = stdout.slice(start + "as these lines:\n\n".length);
  return rest.slice(0, rest.indexOf("\n\n"));
}

describe("sssf init --sdd", () => {
  it("on a fresh repo writes the 13 agents and their prompts; the config loads; sssf list finds sdd's agents", async () => {
    const result = await sssf("init", "--sdd");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const config = loadConfig({ cwd: dir });
    expect(config.agents.map((a) => [a.name, a.writes])).toEqual(
      [...defaultAgents(), ...sddAgents()].map((a) => [a.name, [...a.writes]]),
    );
    expect(config.agents).toHaveLength(13);
    expect(read(CONFIG)).toContain("# The sdd workflow's agents (docs/sdd.md)");

    for (const name of [...DEFAULT_AGENT_NAMES, ...SDD_AGENTS]) {
      expect(read(`${PROMPTS}/${name}/system.md`)).toBe(defaultPrompts(name).system);
      expect(read(`${PROMPTS}/${name}/user.md`)).toBe(defaultPrompts(name).user);
      expect(result.stdout).toContain(`  created ${PROMPTS}/${name}/user.md\n`);
    }
    for (const name of SDD_AGENTS) {
      const user = read(`${PROMPTS}/${name}/user.md`);
      for (const variable of ["{{prompt}}", "{{previous_envelope}}", "{{context_handoff_dir}}"]) {
        expect(user).toContain(`### ${variable.slice(2, -2)}\n\n${variable}`);
      }
      const report = user.slice(user.indexOf("\n## Report\n"));
      expect(report).toMatch(
        /\n## [A-Z][\w ]+\n\n\*\*Change\*\*: [\w-]+\n\*\*Status\*\*: success\n\n### Summary\n[\s\S]*\n### Artifacts\n[\s\S]*\n### Next Recommended\n[\s\S]*\n### Risks\n/,
      );
      expect(user).toMatch(/headed `## \w+ \w+`/);
    }
    expect(result.stdout).toContain(`sssf run sdd "<your request>" --cwd ${dir}`);
    expect(result.stdout).not.toContain("sdd agents:");
    expect(await sddMissing()).toEqual([]);
  });

  it("without --sdd writes the five agents only, and sssf list marks sdd's agents missing", async () => {
    const result = await sssf("init");
    expect(result.code).toBe(0);
    // The temp dir's name holds "sdd": look for what --sdd would print instead.
    for (const text of ["sdd-explore", "sssf run sdd", "sdd agents:"])
      expect(result.stdout).not.toContain(text);
    expect(loadConfig({ cwd: dir }).agents.map((a) => a.name)).toEqual([...DEFAULT_AGENT_NAMES]);
    expect(read(CONFIG)).not.toContain("sdd");
    for (const name of SDD_AGENTS) expect(existsSync(path.join(dir, PROMPTS, name))).toBe(false);
    expect(await sddMissing()).toEqual([...SDD_AGENTS]);
  });

  it("with an existing config: leaves it byte-for-byte, writes the prompts, prints the roster lines to add", async () => {
    const plain = await sssf("init");
    expect(plain.code).toBe(0);
    const before = `${read(CONFIG)}# my own comment\n`;
    write(CONFIG, before);

    const result = await sssf("init", "--sdd");
    expect(result.code).toBe(0);
    expect(read(CONFIG)).toBe(before);
    expect(result.stdout).toContain(`  skipped ${CONFIG} (exists)\n`);
    for (const name of SDD_AGENTS)
      expect(result.stdout).toContain(`  created ${PROMPTS}/${name}/system.md\n`);
    expect(result.stdout).toContain(`sdd agents: ${CONFIG} already exists and sssf never edits it:\n`);
    expect(result.stdout).toContain("add the 8 sdd agents by hand, under agents:, as these lines:");

    // Pasted under agents:, the snippet gives the sdd roster, and the config then loads with all 13.
    const snippet = snippetOf(result.stdout);
    const pasted = parse(`agents:\n${snippet}\n`) as { agents: { name: string; writes: string[] }[] };
    expect(pasted.agents.map((a) => [a.name, a.writes])).toEqual(
      sddAgents().map((a) => [a.name, [...a.writes]]),
    );
    write(CONFIG, before.replace(/\nagents:\n/, `\nagents:\n${snippet}\n`));
    expect(loadConfig({ cwd: dir }).agents).toHaveLength(13);
    expect(await sddMissing()).toEqual([]);

    const again = await sssf("init", "--sdd");
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("created");
    expect(again.stdout).toContain(`sdd agents: all 8 already in the roster of ${CONFIG}\n`);
  });

  it("names only the sdd agents the existing roster lacks", async () => {
    write(
      CONFIG,
      "agents:\n  - name: sdd-explore\n    writes: []\n  - name: sdd-verify\n    writes: []\n  - name: solo\n",
    );
    const result = await sssf("init", "--sdd");
    expect(result.code).toBe(0);
    const lacking = SDD_AGENTS.filter((name) => name !== "sdd-explore" && name !== "sdd-verify");
    expect(result.stdout).toContain(`add 6 of the 8 sdd agents (${lacking.join(", ")}) by hand`);
    const pasted = parse(`agents:\n${snippetOf(result.stdout)}\n`) as { agents: { name: string }[] };
    expect(pasted.agents.map((a) => a.name)).toEqual(lacking);
  });
});
