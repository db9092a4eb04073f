import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineOutputType } from "../../src/envelope/output-type.js";
import { outputJsonSchema } from "../../src/envelope/report-section.js";
import { builtinOutputTypes } from "../../src/envelope/schemas.js";
import { claudeArgs } from "../../src/runtimes/claude-code/args.js";
import {
  CLAUDE_SCHEMA_ARG_LIMIT,
  claudeSchemaArg,
} from "../../src/runtimes/claude-code/structured-output.js";
import { codexArgs, planCodexTools } from "../../src/runtimes/codex/args.js";
import { codexStrictSchema, dropStrictNulls } from "../../src/runtimes/codex/strict-schema.js";
import { strictSchemaProblem } from "../../src/testing/fake-model/strict-schema-check.js";

/** A value shaped as strict mode makes the model send it: every optional field present, as null. */
function strictShaped(value: unknown, schema: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => strictShaped(item, (schema.items ?? {}) as never));
  if (typeof value !== "object" || value === null) return value;
  // A nullable object (`anyOf: [object, null]`): the object branch shapes it.
  const branches = (schema.anyOf ?? []) as Record<string, unknown>[];
  const object = branches.find((branch) => branch.type === "object");
  if (schema.properties === undefined && object !== undefined) return strictShaped(value, object);
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(properties).map((key) => [
      key,
      key in record ? strictShaped(record[key], properties[key] ?? {}) : null,
    ]),
  );
}

describe("codex's strict form of sssf's output schemas", () => {
  for (const [name, type] of Object.entries(builtinOutputTypes)) {
    it(`${name}: passes OpenAI's strict check, and a strict-shaped reply parses to the same envelope`, () => {
      const schema = outputJsonSchema(type);
      expect(strictSchemaProblem("codex_output_schema", schema)).not.toBeNull();
      const strict = codexStrictSchema(schema);
      if (!strict.ok) throw new Error(strict.reason);
      expect(strictSchemaProblem("codex_output_schema", strict.schema)).toBeNull();
      expect(JSON.stringify(strict.schema)).not.toMatch(/"default"|"\$schema"/);
      // The example minus its optional fields, sent as strict mode sends it (nulls), reads back as the door would.
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const sparse = Object.fromEntries(Object.entries(type.example).filter(([key]) => required.has(key)));
      const sent = strictShaped(sparse, schema);
      const { value } = dropStrictNulls(sent, schema);
      expect(type.schema.parse(value)).toEqual(type.schema.parse(sparse));
      const full = dropStrictNulls(strictShaped(type.example, schema), schema).value;
      expect(type.schema.parse(full)).toEqual(type.schema.parse(type.example));
    });
  }

  it("keeps a null the output type itself allows, and removes nulls inside nested objects", () => {
    const schema = outputJsonSchema(builtinOutputTypes.ChangesOutput);
    const cleaned = dropStrictNulls(
      { status: "success", files: [{ path: "a", change: "added", previous_path: null }], summary: null },
      schema,
    );
    expect(cleaned).toEqual({
      value: { status: "success", files: [{ path: "a", change: "added" }] },
      dropped: 2,
    });
    const verify = dropStrictNulls(
      { status: "success", suite: "t", passed: true, exit_code: null },
      outputJsonSchema(builtinOutputTypes.VerifyOutput),
    );
    expect(verify).toEqual({
      value: { status: "success", suite: "t", passed: true, exit_code: null },
      dropped: 0,
    });
  });

  it("refuses what strict mode cannot express: free keys, unconstrained fields", () => {
    const record = defineOutputType(
      "Mapped",
      z.object({ status: z.enum(["success", "fail"]), counts: z.record(z.string(), z.number()) }),
      {
        status: "success",
        counts: {},
      },
    );
    expect(codexStrictSchema(outputJsonSchema(record))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("field counts"),
    });
    const loose = { type: "object", properties: { anything: {} } };
    expect(codexStrictSchema(loose)).toEqual({
      ok: false,
      reason: "field anything accepts any value, which strict mode cannot express",
    });
  });

  it("puts --output-schema before resume", () => {
    const plan = planCodexTools([], false);
    const argv = codexArgs({
      command: ["codex"],
      cwd: "/w",
      model: "gpt-5.5",
      effort: null,
      plan,
      instructionsFile: "/s/i.md",
      catalogFile: null,
      threadId: "01a23372-4aa3-7ed0-8b59-2808d2e269ac",
      outputSchemaFile: "/s/o.json",
    });
    expect(argv.indexOf("--output-schema")).toBe(argv.indexOf("resume") - 2);
    expect(argv[argv.indexOf("--output-schema") + 1]).toBe("/s/o.json");
  });
});

describe("claude's --json-schema value", () => {
  it("drops zod's $schema dialect (claude's validator knows none) and is passed inline", () => {
    const schema = outputJsonSchema(builtinOutputTypes.GenericOutput);
    expect(schema.$schema).toBeDefined();
    const arg = claudeSchemaArg(schema);
    if (!arg.ok) throw new Error(arg.reason);
    const { $schema: _dialect, ...rest } = schema;
    expect(JSON.parse(arg.json)).toEqual(rest);
    const argv = claudeArgs({
      uuid: "u",
      resume: false,
      model: "",
      thinking: "off",
      tools: [],
      systemPromptFile: "/s.md",
      jsonSchema: arg.json,
    });
    expect(argv).toContain(`--json-schema=${arg.json}`);
    expect(
      claudeArgs({
        uuid: "u",
        resume: false,
        model: "",
        thinking: "off",
        tools: [],
        systemPromptFile: "/s.md",
      }),
    ).not.toEqual(expect.arrayContaining([expect.stringMatching(/^--json-schema/)]));
  });

  it("is not passed when it would not fit one argv string", () => {
    const huge = { type: "object", description: "x".repeat(CLAUDE_SCHEMA_ARG_LIMIT) };
    expect(claudeSchemaArg(huge)).toMatchObject({ ok: false, reason: expect.stringContaining("argv") });
  });
});
