/** The dry run's example envelopes: valid for every built-in output type, the same on every call, and a named refusal. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ExampleGenerationError, exampleEnvelope } from "../../src/dry-run/example-envelope.js";
import type { OutputType } from "../../src/envelope/output-type.js";
import { defineOutputType } from "../../src/envelope/output-type.js";
import * as schemas from "../../src/envelope/schemas.js";

const builtinTypes = (Object.values(schemas) as unknown[]).filter(
  (value): value is OutputType =>
    typeof value === "object" && value !== null && "schema" in value && "example" in value,
);

describe("exampleEnvelope", () => {
  it("makes a valid, passing envelope of every built-in output type, the same every time", () => {
    expect(builtinTypes.map((type) => type.name)).toContain("BuildOutput");
    for (const type of builtinTypes) {
      const envelope = exampleEnvelope(type) as { status: string };
      expect(type.schema.safeParse(envelope).success, type.name).toBe(true);
      expect(envelope.status, type.name).toBe("success");
      expect(exampleEnvelope(type), type.name).toEqual(envelope);
    }
    expect(exampleEnvelope(schemas.ReviewOutput)).toMatchObject({ approved: true, blocking: [] });
  });

  it("meets formats, bounds, unions, nested and reused objects", () => {
    const Point = z.object({ x: z.number().int().min(3), y: z.number().gt(1).max(10) });
    const type = defineOutputType(
      "ShapeOutput",
      schemas.EnvelopeBase.extend({
        at: z.iso.datetime(),
        mail: z.email(),
        id: z.uuid(),
        code: z.string().min(12).max(14),
        tags: z.array(z.string()).min(2),
        pair: z.tuple([z.literal("a"), z.number()]),
        either: z.union([z.null(), z.object({ kind: z.literal("k") })]),
        from: Point,
        to: Point,
        level: z.enum(["high", "low"]).nullable(),
      }),
      { status: "success" } as never,
    );
    const envelope = exampleEnvelope(type);
    expect(type.schema.safeParse(envelope).success).toBe(true);
    expect(envelope).toMatchObject({
      tags: ["<tags[0]>", "<tags[1]>"],
      pair: ["a", 0],
      either: { kind: "k" },
      from: { x: 3, y: 1.5 },
      to: { x: 3, y: 1.5 },
      level: "high",
    });
    expect(envelope.code).toHaveLength(12);
  });

  it("names the type it cannot make an example of", () => {
    const refined = defineOutputType(
      "TicketOutput",
      schemas.EnvelopeBase.extend({
        ticket: z.string().refine((v) => /^[A-Z]+-\d+$/.test(v), "a ticket id"),
      }),
      { status: "success", ticket: "A-1" },
    );
    expect(() => exampleEnvelope(refined)).toThrow(ExampleGenerationError);
    expect(() => exampleEnvelope(refined)).toThrow(
      "cannot generate an example envelope of output type TicketOutput: the generated value fails its schema (ticket: a ticket id)",
    );
    const custom = defineOutputType(
      "BlobOutput",
      schemas.EnvelopeBase.extend({ blob: z.custom<Uint8Array>((v) => v instanceof Uint8Array) }),
      { status: "success", blob: new Uint8Array() },
    );
    expect(() => exampleEnvelope(custom)).toThrow(
      /output type BlobOutput: its schema has a part JSON Schema cannot express/,
    );
  });
});
