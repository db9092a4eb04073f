import { describe, expectTypeOf, it } from "vitest";
import {
  type AgentPhase,
  type CodePhase,
  defineWorkflow,
  type EngineerPhase,
  type Finished,
} from "../../src/api/run-api.js";
import { BuildOutput, GenericOutput } from "../../src/envelope/schemas.js";

describe("the workflow API enforces its rules in types", () => {
  it("call() exists only on agent phases", () => {
    expectTypeOf<AgentPhase>().toHaveProperty("call");
    expectTypeOf<EngineerPhase>().not.toHaveProperty("call");
    expectTypeOf<CodePhase>().not.toHaveProperty("call");
    defineWorkflow({
      name: "t",
      description: "",
      agents: [],
      async run(run) {
        await run.engineer("e", { description: "" }, (phase) => {
          // @ts-expect-error engineer phases cannot call agents
          phase.call({ outputType: GenericOutput, prompt: "" });
        });
        await run.code("c", { description: "" }, (phase) => {
          // @ts-expect-error code phases cannot call agents
          phase.call({ outputType: GenericOutput, prompt: "" });
        });
        return run.finish({ accepted: true });
      },
    });
  });

  it("call() returns the declared envelope type", () => {
    defineWorkflow({
      name: "t",
      description: "",
      agents: ["builder"],
      async run(run) {
        const build = await run.agent("b", { owner: "builder", description: "" }, (phase) =>
          phase.call({ outputType: BuildOutput, prompt: "" }),
        );
        expectTypeOf(build.changed_files).toEqualTypeOf<string[]>();
        expectTypeOf(build.status).toEqualTypeOf<"success" | "fail">();
        return run.finish({ accepted: build.changed_files.length > 0 });
      },
    });
  });

  it("finish() is the only way a workflow ends", () => {
    expectTypeOf(defineWorkflow)
      .parameter(0)
      .toHaveProperty("run")
      .returns.resolves.toEqualTypeOf<Finished>();
    defineWorkflow({
      name: "t",
      description: "",
      agents: [],
      // @ts-expect-error a workflow must return run.finish(...)
      async run() {
        return { accepted: true, reason: "forged" };
      },
    });
  });
});
