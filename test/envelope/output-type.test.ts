/** An output type's example is checked against its schema when a call first uses the type. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { callContract } from "../../src/engine/call-contract.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import { assertExampleMatches, defineOutputType } from "../../src/envelope/output-type.js";
import * as schemas from "../../src/envelope/schemas.js";

describe("output type examples", () => {
  it("every built-in type's example matches its schema", () => {
    const types = [...Object.values(schemas), MarkdownResult].filter(
      (value): value is typeof MarkdownResult =>
        typeof value === "object" && value !== null && "example" in value && "schema" in value,
    );
    expect(types.length).toBeGreaterThanOrEqual(9);
    for (const type of types) expect(() => assertExampleMatches(type)).not.toThrow();
  });

  it("a call with a type whose example is wrong fails before rendering, naming the type", () => {
    const Wrong = defineOutputType("WrongOutput", schemas.EnvelopeBase.extend({ count: z.number() }), {
      status: "success",
      summary: "x",
      count: "three",
    } as never);
    expect(() => callContract(Wrong)).toThrow(/example of output type WrongOutput does not match its schema/);
    // Still wrong on the next call: a failed check is not remembered as passed.
    expect(() => assertExampleMatches(Wrong)).toThrow(TypeError);
  });
});
