/**
 * `sssf resume` checks every model of the roster before any agent starts (built CLI: `npm run build`
 * first): a failed run whose config now names an unknown pi model in a ladder is refused with the
 * field and the model, exit 2, its agent not asked again; with the rung fixed it resumes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { envelopeJson, repoRoot, Sandbox } from "../helpers/sandbox.js";

process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("sssf resume checks the roster's models", () => {
  it("refuses a ladder naming an unknown pi model, then resumes once it is fixed", {
    timeout: 120_000,
  }, async () => {
    const turns = [
      { reply: envelopeJson({ status: "fail", summary: "not yet" }) },
      { reply: envelopeJson({ summary: "done" }) },
    ];
    sb.setup([{ name: "assistant", turns }]);
    const first = await sb.run(["run", "prompt", "build it", "--adw-id", "feed0001"]);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(sb.agent("assistant").sends()).toHaveLength(1);

    // A pi agent joins the roster with a ladder whose second rung pi does not have.
    const piDir = path.join(sb.dir, "pi-agent");
    mkdirSync(piDir, { recursive: true });
    const local = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "sk-local" };
    writeFileSync(
      path.join(piDir, "models.json"),
      JSON.stringify({ providers: { local: { ...local, models: [{ id: "cheap" }, { id: "strong" }] } } }),
    );
    const promptDir = path.join(sb.dir, "adws/adw_data/prompt_engineering/builder");
    mkdirSync(promptDir, { recursive: true });
    writeFileSync(path.join(promptDir, "system.md"), "You build.\n");
    writeFileSync(path.join(promptDir, "user.md"), "{{prompt}}\n");
    const builder = (models: string[]) => ({
      name: "builder",
      coding_agent: "pi",
      command: [path.join(repoRoot, "node_modules/.bin/pi")],
      env: { PI_CODING_AGENT_DIR: piDir },
      models,
    });
    const assistant = { name: "assistant", ...sb.agent("assistant").rosterEntry };
    sb.writeConfig({ agents: [assistant, builder(["local/cheap", "local/strongest"])] });

    const refused = await sb.run(["resume", "feed0001"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'agents[1].models[1]: agent builder: pi has no model "local/strongest": it is not in ',
    );
    expect(sb.agent("assistant").sends()).toHaveLength(1);

    sb.writeConfig({ agents: [assistant, builder(["local/cheap", "local/strong"])] });
    const resumed = await sb.run(["resume", "feed0001"]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(sb.agent("assistant").sends()).toHaveLength(2);
  });
});
