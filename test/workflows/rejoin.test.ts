import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import { goodBuild, plannerTurns, reply, WorkflowWorld } from "./workflow-world.js";

let world: WorkflowWorld | undefined;
afterEach(() => world?.cleanup());

const CONFIG = "adws/adw_sssf_config/sssf.config.yaml";

describe("rejoining a session with --adw-id", () => {
  it("re-hydrates the previous envelope, resumes agents' sessions, and starts fresh on a model change", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "planner", turns: plannerTurns },
        {
          name: "builder",
          turns: [
            goodBuild,
            {
              tool_calls: [
                {
                  tool: "write",
                  write_file: {
                    path: "src/app.js",
                    content: "export function add(a, b) {\n  return b + a;\n}\n",
                  },
                },
              ],
              reply: reply({
                summary: "commuted",
                changed_files: ["src/app.js"],
                commit_message: "Swap operands",
              }),
            },
            {
              tool_calls: [{ tool: "write", write_file: { path: "src/extra.js", content: "export {};\n" } }],
              reply: reply({
                summary: "extra",
                changed_files: ["src/extra.js"],
                commit_message: "Add extra",
              }),
            },
          ],
        },
      ],
    });

    const planned = await world.run(["run", "plan", "add an add function"]);
    expect(planned.code).toBe(0);
    const adwId = adwIdFrom(planned.stdout);

    // A later workflow on the same session: the builder sees the planner's envelope from the first run.
    const built = await world.run(["run", "build", "implement the plan", "--adw-id", adwId]);
    expect(built.code).toBe(0);
    const builder = world.sb.agent("builder");
    const [first] = builder.sends();
    expect(first?.prompt).toContain('"commit_message": "Plan the add function"');
    expect(first?.resume).toBe(false);

    // Again: the builder resumes its own session, and sees its own last envelope.
    const again = await world.run(["run", "build", "swap the operands", "--adw-id", adwId]);
    expect(again.code).toBe(0);
    const second = builder.sends()[1];
    expect(second?.session_id).toBe(first?.session_id);
    expect(second?.resume).toBe(true);
    expect(second?.prompt).toContain('"summary": "added add"');

    // The builder's model changes in the config: a fresh session, and the trace says why.
    const configPath = path.join(world.sb.dir, CONFIG);
    const config = JSON.parse(readFileSync(configPath, "utf8"));
    config.agents = config.agents.map((a: { name: string }) =>
      a.name === "builder" ? { ...a, model: "other" } : a,
    );
    writeFileSync(configPath, JSON.stringify(config));
    const changed = await world.run(["run", "build", "add an extra module", "--adw-id", adwId]);
    expect(changed.code).toBe(0);
    const third = builder.sends()[2];
    expect(third?.session_id).not.toBe(first?.session_id);
    expect(third?.resume).toBe(false);
    const notes = world.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND name LIKE '%starting a fresh session%'",
      adwId,
    );
    expect(notes).toHaveLength(1);
    const agentMap = JSON.parse(
      readFileSync(path.join(world.sb.sessionDir(adwId), "agent_map.json"), "utf8"),
    );
    expect(agentMap.builder).toMatchObject({ session_id: third?.session_id, model: "other" });

    // Four runs, phase numbers continuing, and every commit on the one session's history.
    const phases = world.sb.query<{ number: number }>(
      "SELECT number FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    );
    expect(phases.map((p) => p.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(world.commits(adwId)).toEqual([
      "Plan the add function",
      "Add the add function",
      "Swap operands",
      "Add extra",
    ]);
  });
});
