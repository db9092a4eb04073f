/** An output type's example is checked against its schema when a call first uses the type. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { callContract } from "../../src/engine/call-contract.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import { assertExampleMatches, defineOutputType, lazyOutputType } from "../../src/envelope/output-type.js";
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

describe("lazy output types", () => {
  it("build the schema once, on first read, and stay frozen", () => {
    let builds = 0;
    const Lazy = lazyOutputType(
      "LazyOutput",
      () => {
        builds += 1;
        return schemas.EnvelopeBase.extend({ ticket: z.string() });
      },
      { status: "success", ticket: "ABC-1" },
    );
    expect(builds).toBe(0);
    expect(Lazy.name).toBe("LazyOutput");
    const first = Lazy.schema;
    expect(Lazy.schema).toBe(first);
    expect(builds).toBe(1);
    expect(Object.isFrozen(Lazy)).toBe(true);
    expect(() => {
      (Lazy as { name: string }).name = "Other";
    }).toThrow(TypeError);
    expect(first.parse({ status: "success", ticket: "ABC-1" }).ticket).toBe("ABC-1");
    expect(first.safeParse({ status: "success" }).success).toBe(false);
  });

  it("the built-in types read like declared ones: a spread copy carries the schema", () => {
    const copy = { ...schemas.PlanOutput };
    expect(copy.schema).toBe(schemas.PlanOutput.schema);
    expect(copy.schema.shape.commit_message).toBeDefined();
    expect(schemas.builtinOutputTypes.ChangesOutput.schema.parse({ status: "fail" }).files).toEqual([]);
  });
});
