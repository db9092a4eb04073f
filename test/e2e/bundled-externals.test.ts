import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";

/** Runs `code` as an ES module importing the built `dist/` (`dist` is its folder URL); returns what it printed. */
function withDist(code: string): string {
  const dist = new URL(`file://${path.join(repoRoot, "dist")}/`).href;
  return execFileSync(
    process.execPath,
    ["--input-type=module", "-e", `const dist = ${JSON.stringify(dist)};\n${code}`],
    { encoding: "utf8" },
  );
}

describe("the libraries a built sssf parses with", () => {
  it("jsonrepair mends a reply that is almost JSON", () => {
    const out = withDist(`
      const { parseEnvelope } = await import(dist + "envelope/parse-envelope.js");
      const { GenericOutput } = await import(dist + "index.js");
      const reply = 'Done. {"status": "success", "summary": "ok" "artifacts": [],}';
      console.log(JSON.stringify(parseEnvelope(reply, GenericOutput).envelope));
    `);
    expect(JSON.parse(out)).toMatchObject({ status: "success", summary: "ok", artifacts: [] });
  });

  it("the bundled yaml parses a config with its anchors, comments and block strings", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sssf-externals-"));
    try {
      const config = path.join(dir, "adws/adw_sssf_config/sssf.config.yaml");
      mkdirSync(path.dirname(config), { recursive: true });
      writeFileSync(
        config,
        "defaults: &d\n  coding_agent: exec # the scripted ones\nagents:\n  - name: planner\n    command: [node, a.mjs]\n    purpose: |\n      plans\n      the work\n",
      );
      for (const file of ["system.md", "user.md"]) {
        mkdirSync(path.join(dir, "adws/adw_data/prompt_engineering/planner"), { recursive: true });
        writeFileSync(path.join(dir, "adws/adw_data/prompt_engineering/planner", file), "{{prompt}}\n");
      }
      const out = withDist(`
        const { loadConfig, BUILTIN_RUNTIME_IDS } = await import(dist + "index.js");
        const config = loadConfig({ cwd: ${JSON.stringify(dir)}, knownRuntimes: BUILTIN_RUNTIME_IDS });
        console.log(JSON.stringify(config.agents.map((a) => [a.name, a.codingAgent, a.purpose])));
      `);
      expect(JSON.parse(out)).toEqual([["planner", "exec", "plans\nthe work\n"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
