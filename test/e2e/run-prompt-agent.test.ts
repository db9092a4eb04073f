import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultPrompts } from "../../src/workflows/prompts/default-prompts.js";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";

// Which agent `sssf run prompt` hands the request to, and with which user prompt (built CLI, exec agents).

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const answer = { reply: envelopeJson({ summary: "answered" }) };
/** The planner as `sssf init` writes it: its user.md is the task "write the implementation plan". */
const planner = { name: "planner", turns: [answer, answer], userPrompt: defaultPrompts("planner").user };
const PLAN_TASK = "Write the implementation plan for `prompt`";

describe("sssf run prompt without --agent", () => {
  it("init's roster (no general agent): the first agent gets the request as it is, not its own task, and the run says so", async () => {
    sb.setup([planner, { name: "builder", turns: [] }]);
    const result = await sb.run(["run", "prompt", "List the TODO comments in src/"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `prompt (agent planner) Answer the request with a general prompt, not planner's own task (no --agent and no "general" agent: the roster's first)`,
    );
    const [sent] = sb.agent("planner").sends();
    expect(sent?.prompt).toContain("# Request\n\nList the TODO comments in src/\n");
    expect(sent?.prompt).toContain("## Report");
    expect(sent?.prompt).not.toContain(PLAN_TASK);
    expect(sb.agent("builder").sends()).toHaveLength(0);

    // --agent still means that agent with its own prompts.
    const named = await sb.run(["run", "prompt", "Plan the TODO cleanup", "--agent", "planner"]);
    expect(named.code, named.stdout + named.stderr).toBe(0);
    expect(sb.agent("planner").sends()[1]?.prompt).toContain(PLAN_TASK);
  });

  it("a roster with a general agent: that agent, with its own prompts", async () => {
    sb.setup([planner, { name: "general", turns: [answer], userPrompt: "# General\n\n{{prompt}}\n" }]);
    const result = await sb.run(["run", "prompt", "Explain the build"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `prompt (agent general) Answer the request (no --agent: the roster's general)`,
    );
    expect(sb.agent("planner").sends()).toHaveLength(0);
    expect(sb.agent("general").sends()[0]?.prompt).toContain("# General\n\nExplain the build\n");
  });
});
