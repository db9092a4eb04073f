/** The catalog `sssf --help` reads instead of loading the workflows says what the workflows say. */
import { describe, expect, it } from "vitest";
import { BUILTIN_WORKFLOW_CATALOG } from "../../src/workflows/builtin-catalog.js";
import { builtinWorkflows } from "../../src/workflows/index.js";

describe("the built-in workflow catalog", () => {
  it("lists every built-in workflow, in order, with its own description", () => {
    expect(BUILTIN_WORKFLOW_CATALOG).toEqual(
      [...builtinWorkflows.values()].map((w) => ({ name: w.name, description: w.description })),
    );
  });
});
