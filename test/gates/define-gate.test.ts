import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineGate, defineWorkflow, GenericOutput, type PathChange, runWorkflow } from "../../src/index.js";
import { createRepo, ok, type Repo } from "../engine/workflow-fixture.js";

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

/** Runs one agent call that writes `notes.md`, gated by a gate recording what `phaseChanges()` said. */
async function changesSeenBy(options: { usesPhaseChanges?: boolean } | undefined): Promise<PathChange[]> {
  repo = createRepo({
    writer: [
      {
        tool_calls: [{ tool: "write", write_file: { path: "notes.md", content: "written by the agent\n" } }],
        reply: ok(),
      },
    ],
  });
  // An edit made before the call is not the agent's.
  writeFileSync(path.join(repo.dir, "before.md"), "the operator's\n");
  const seen: PathChange[] = [];
  const recordsChanges = defineGate(
    "recordsChanges",
    async (_envelope: unknown, context, report) => {
      seen.push(...(await context.phaseChanges()));
      report.check("phaseChanges", true, `${seen.length} change(s)`);
    },
    options,
  );
  const workflow = defineWorkflow({
    name: "write",
    description: "",
    agents: ["writer"],
    async run(run, request) {
      await run.agent("write", { owner: "writer", description: "" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: request, gates: [recordsChanges] }),
      );
      return run.finish({ accepted: true });
    },
  });
  const outcome = await runWorkflow({ workflow, request: "write notes", config: repo.config });
  expect(outcome.exitCode).toBe(0);
  return seen;
}

describe("defineGate options", () => {
  it("a custom gate defined with usesPhaseChanges is asked for what the call changed", async () => {
    const gate = defineGate("g", () => undefined, { usesPhaseChanges: true });
    expect(gate.usesPhaseChanges).toBe(true);
    expect(await changesSeenBy({ usesPhaseChanges: true })).toEqual([{ path: "notes.md", change: "added" }]);
  });

  it("without the option the engine takes no snapshot before the call, so the gate sees no change", async () => {
    expect(defineGate("g", () => undefined).usesPhaseChanges).toBe(false);
    expect(await changesSeenBy(undefined)).toEqual([]);
  });
});
