import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineWorkflow } from "../../src/api/run-api.js";
import { defineOutputType } from "../../src/envelope/output-type.js";
import { EnvelopeBase, GenericOutput } from "../../src/envelope/schemas.js";
import { runWorkflow } from "../../src/library.js";
import { defaultPrompts } from "../../src/workflows/prompts/default-prompts.js";
import { createRepo, ok, type Repo } from "./workflow-fixture.js";

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

const FunctionOutput = defineOutputType(
  "FunctionOutput",
  EnvelopeBase.extend({ function_name: z.string().describe("The function written.") }),
  { status: "success", summary: "wrote add()", artifacts: ["src/add.ts"], function_name: "add" },
);

function oneCall(type: typeof GenericOutput | typeof FunctionOutput, prompt = "do it") {
  return defineWorkflow({
    name: "one",
    description: "",
    agents: ["a"],
    async run(run) {
      await run.agent("work", { owner: "a", description: "" }, (p) => p.call({ outputType: type, prompt }));
      return run.finish({ accepted: true });
    },
  });
}

function useUserPrompt(r: Repo, text: string): void {
  writeFileSync(path.join(r.dir, "adws/adw_data/prompt_engineering/a/user.md"), text);
}

describe("the contract in the prompt is always the call's own", () => {
  it("a prompt sssf init wrote for the planner asks a GenericOutput call for GenericOutput, with no correction", async () => {
    repo = createRepo({ a: [{ reply: ok({ summary: "answered" }) }] });
    useUserPrompt(repo, defaultPrompts("planner").user);
    const outcome = await runWorkflow({
      workflow: oneCall(GenericOutput),
      request: "x",
      config: repo.config,
    });
    expect(outcome.exitCode).toBe(0);
    const sent = repo.agents.a?.sends()[0]?.prompt ?? "";
    expect(sent).toContain("matching `GenericOutput`");
    expect(sent).not.toContain("PlanOutput");
    expect(sent).not.toContain("<!-- sssf:");
    // The planner's own task and variables stay.
    expect(sent).toContain("## Task");
    expect(sent.match(/^## Report/gm)).toHaveLength(1);
    expect(repo.agents.a?.sends()).toHaveLength(1);
    expect(repo.query("SELECT count(*) AS n FROM events WHERE payload LIKE '%stale_report%'")).toEqual([
      { n: 0 },
    ]);
  });

  it("a custom type's call on the builder's prompt is told its own type and fields, not BuildOutput", async () => {
    repo = createRepo({ a: [{ reply: ok({ summary: "wrote add()", function_name: "add" }) }] });
    useUserPrompt(repo, defaultPrompts("builder").user);
    const outcome = await runWorkflow({
      workflow: oneCall(FunctionOutput),
      request: "x",
      config: repo.config,
    });
    expect(outcome.exitCode).toBe(0);
    const sent = repo.agents.a?.sends()[0]?.prompt ?? "";
    expect(sent).toContain("matching `FunctionOutput`");
    expect(sent).toContain("`function_name` (string, required): The function written.");
    expect(sent).not.toContain("BuildOutput");
    expect(repo.agents.a?.sends()).toHaveLength(1);
  });

  it("a hand-written Report naming another type is replaced, and the trace warns", async () => {
    repo = createRepo({ a: [{ reply: ok() }] });
    useUserPrompt(
      repo,
      "# Task\n\n{{prompt}}\n\n## Report\n\nRespond with ONLY valid JSON matching `BuildOutput`.\n\n## Notes\n\nBe brief.\n",
    );
    const outcome = await runWorkflow({
      workflow: oneCall(GenericOutput),
      request: "x",
      config: repo.config,
    });
    expect(outcome.exitCode).toBe(0);
    const sent = repo.agents.a?.sends()[0]?.prompt ?? "";
    expect(sent).not.toContain("BuildOutput");
    expect(sent).toContain("matching `GenericOutput`");
    expect(sent).toMatch(/## Notes\n\nBe brief\.\n$/);
    const warnings = repo.query<{ name: string }>(
      "SELECT name FROM events WHERE payload LIKE '%stale_report%'",
    );
    expect(warnings).toEqual([
      {
        name: "a's user.md has a hand-written ## Report naming BuildOutput; this GenericOutput call gets its own contract in its place",
      },
    ]);
  });

  it("a request that contains a Report heading is never taken for the template's section", async () => {
    repo = createRepo({ a: [{ reply: ok() }] });
    useUserPrompt(repo, "# Task\n\n{{prompt}}\n");
    const request = "Fix the docs.\n\n## Report\n\nMatching `PlanOutput` is what the old doc said.";
    await runWorkflow({ workflow: oneCall(GenericOutput, request), request, config: repo.config });
    const sent = repo.agents.a?.sends()[0]?.prompt ?? "";
    expect(sent).toContain(request);
    expect(sent).toContain("matching `GenericOutput`");
    expect(repo.query("SELECT count(*) AS n FROM events WHERE payload LIKE '%stale_report%'")).toEqual([
      { n: 0 },
    ]);
  });
});
