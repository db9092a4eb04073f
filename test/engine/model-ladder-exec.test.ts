import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../code/fixtures.js";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";

// Model ladders (`agents[].models`) through the real CLI (dist/: `npm run build` first) with scripted
// exec agents whose turns answer by model (`match_model`): the cheap model fails its corrections, the
// strong one succeeds, or every rung fails.
process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const done = envelopeJson({ summary: "done" });
const on = (model: string, reply: string, times: number) =>
  Array.from({ length: times }, () => ({ match_model: model, reply }));

interface EventRow {
  name: string;
  payload: string;
}

function escalations(): Record<string, unknown>[] {
  return sb
    .query<EventRow>("SELECT name, payload FROM events WHERE type = 'escalation' ORDER BY rowid")
    .map((row) => JSON.parse(row.payload) as Record<string, unknown>);
}

function gitRepo(): void {
  writeFileSync(
    path.join(sb.dir, ".gitignore"),
    "adws/adw_data/sessions/\nadws/adw_data/*.db*\nadws/adw_data/.worktrees/\n",
  );
  git(sb.dir, "init", "-q", "-b", "main");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

describe("model ladders through the CLI (exec agents)", () => {
  it("starts again, fresh, on the strong model after the cheap one's JSON fixes run out", async () => {
    sb.setup(
      [
        {
          name: "assistant",
          turns: [...on("cheap", "no json here", 2), { match_model: "strong", reply: done }],
          extra: { models: ["cheap", "strong"] },
        },
      ],
      { limits: { json_fix_attempts: 1 } },
    );
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /! assistant: corrections exhausted on cheap \(assistant gave no valid GenericOutput after 2 replies: [^)]*\); escalated to strong, rung 2\/2, in a fresh session/,
    );
    const sends = sb.agent("assistant").sends();
    expect(sends.map((send) => [send.turn, send.resume])).toEqual([
      [0, false],
      [1, true],
      [2, false],
    ]);
    // A fresh session on the strong model, with the same rendered prompt the cheap one first got.
    expect(sends[2]!.session_id).not.toBe(sends[0]!.session_id);
    expect(sends[2]!.prompt).toBe(sends[0]!.prompt);
    expect(escalations()).toEqual([
      expect.objectContaining({ from: "cheap", to: "strong", rung: 1, first_attempt: 3 }),
    ]);
    const envelopes = sb.query<{ attempt: number; valid: number }>(
      "SELECT attempt, valid FROM envelopes ORDER BY attempt",
    );
    expect(envelopes).toEqual([
      { attempt: 1, valid: 0 },
      { attempt: 2, valid: 0 },
      { attempt: 3, valid: 1 },
    ]);
    const [session] = sb.query<{ adw_id: string }>("SELECT adw_id FROM sessions");
    const listed = await sb.run(["envelopes", session!.adw_id, "--json"]);
    const rows = JSON.parse(listed.stdout) as { attempt: number; model: string }[];
    expect(rows.map((row) => [row.attempt, row.model])).toEqual([
      [1, "cheap"],
      [2, "cheap"],
      [3, "strong"],
    ]);
    // `sssf tail` replays the line the run printed.
    const tail = await sb.run(["tail", session!.adw_id, "--from-start"]);
    expect(tail.stdout).toContain("escalated to strong, rung 2/2, in a fresh session");
    const phases = await sb.run(["phases", session!.adw_id]);
    expect(phases.stdout).toContain("escalated cheap → strong: assistant gave no valid GenericOutput");
    const phasesJson = JSON.parse((await sb.run(["phases", session!.adw_id, "--json"])).stdout) as {
      escalations: unknown[];
    }[];
    // The request's code phase, then the agent's.
    expect(phasesJson.map((phase) => phase.escalations)).toEqual([
      [],
      [expect.objectContaining({ from: "cheap", to: "strong" })],
    ]);
  });

  it("climbs when the gates still fail after their corrections, and fails naming every rung when the last fails too", async () => {
    const ghost = envelopeJson({
      summary: "claimed",
      changed_files: ["src/ghost.js"],
      commit_message: "Ghost",
    });
    sb.setup([
      {
        name: "builder",
        turns: [...on("cheap", ghost, 4), ...on("strong", ghost, 4)],
        extra: { model: "cheap", models: ["cheap", "strong"] },
      },
    ]);
    gitRepo();
    const result = await sb.run(["run", "build", "add a slug helper", "--in-place"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("escalated to strong, rung 2/2, in a fresh session");
    expect(result.stdout + result.stderr).toMatch(
      /every model of the ladder failed \(cheap: gate violations after \d correction\(s\): [^|]+\| strong: gate violations after \d correction\(s\)/,
    );
    expect(escalations()).toEqual([expect.objectContaining({ from: "cheap", to: "strong" })]);
    const models = new Set(
      sb
        .agent("builder")
        .sends()
        .map((send) => send.session_id),
    );
    expect(models.size).toBe(2);
  });

  it("refuses a ladder whose model is not its first rung, naming the field, exit 2", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: done }],
        extra: { model: "strong", models: ["cheap", "strong"] },
      },
    ]);
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'agents[0].model: "strong" is not models[0] ("cheap"); a phase starts on models[0]: drop model or make it the first rung',
    );
    expect(sb.agent("assistant").sends()).toEqual([]);
  });

  it("refuses a ladder naming a model twice, exit 2", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: done }], extra: { models: ["cheap", "cheap"] } }]);
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('agents[0].models[1]: "cheap" is already on the ladder');
  });
});
