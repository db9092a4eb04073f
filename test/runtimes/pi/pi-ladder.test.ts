/**
 * A model ladder with the real pi against the fake model (`sssf run --fake-script`, e2e: `npm run
 * build` first): the fake's steps match on the request's model, so the cheap model's replies stay
 * invalid and the strong one's is accepted on the second rung, in a fresh pi session.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../../helpers/sandbox.js";
import { piBinary } from "./pi-world.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("a model ladder with the real pi", () => {
  it("escalates fake/fake-model → fake/fake-model-strong after the JSON fixes run out", async () => {
    const dir = path.join(sb.dir, "adws/adw_data/prompt_engineering/helper");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "system.md"), "# helper\n\nReply with the JSON report.\n");
    writeFileSync(path.join(dir, "user.md"), "# Task\n\n{{prompt}}\n");
    sb.writeConfig({
      sandbox: { mode: "off" },
      limits: { json_fix_attempts: 1 },
      agents: [
        {
          name: "helper",
          coding_agent: "pi",
          command: [piBinary],
          models: ["fake/fake-model", "fake/fake-model-strong"],
        },
      ],
    });
    const file = path.join(sb.agentsDir, "script.json");
    writeFileSync(
      file,
      JSON.stringify({
        steps: [
          { match: { model: "fake-model" }, reply: "I did it, trust me.", times: 2 },
          {
            match: { model: "fake-model-strong" },
            reply: JSON.stringify({ status: "success", summary: "done by the strong model" }),
          },
        ],
      }),
    );
    const result = await sb.run(["run", "prompt", "say done", "--fake-script", file]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "! helper: corrections exhausted on fake/fake-model (helper gave no valid GenericOutput after 2 replies",
    );
    expect(result.stdout).toContain("escalated to fake/fake-model-strong, rung 2/2, in a fresh session");
    const starts = sb.query<{ model: string; session: string }>(
      "SELECT json_extract(payload, '$.model') AS model, json_extract(payload, '$.session_id') AS session FROM events WHERE type = 'agent_start' ORDER BY rowid",
    );
    expect(starts.map((row) => row.model)).toEqual([
      "fake/fake-model",
      "fake/fake-model",
      "fake/fake-model-strong",
    ]);
    // The cheap model's fix continued its session; the strong model started a fresh one.
    expect(starts[1]?.session).toBe(starts[0]?.session);
    expect(starts[2]?.session).not.toBe(starts[0]?.session);
    const [accepted] = sb.query<{ attempt: number }>("SELECT attempt FROM envelopes WHERE accepted = 1");
    expect(accepted?.attempt).toBe(3);
  });
});
