import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineOutputType } from "../../src/envelope/output-type.js";
import { outputJsonSchema, reportSection } from "../../src/envelope/report-section.js";
import { builtinOutputTypes, ReviewOutput, ScoutOutput } from "../../src/envelope/schemas.js";

describe("reportSection", () => {
  for (const type of Object.values(builtinOutputTypes)) {
    it(`renders ${type.name} with a valid example`, () => {
      const section = reportSection(type);
      expect(section.startsWith("## Report\n")).toBe(true);
      expect(section).toContain(
        `Respond with ONLY valid JSON matching \`${type.name}\` — no prose before or after:`,
      );
      const fence = /```json\n([\s\S]*?)\n```/.exec(section);
      const example: unknown = JSON.parse(fence?.[1] ?? "");
      expect(type.schema.safeParse(example).success).toBe(true);
      expect(example).toEqual(type.example);
      expect(section).toContain("\nFields:\n");
      expect(section).toContain(
        '- `status` ("success" | "fail", required): "success" or "fail": an agent declaring failure fails the phase',
      );
    });
  }

  it("lists nested types, optionality and descriptions", () => {
    const reviewFields = reportSection(ReviewOutput).split("Fields:\n")[1];
    expect(reviewFields).toContain(
      "- `approved` (boolean, optional): The verdict; status only says whether the review ran",
    );
    expect(reviewFields).toContain(
      "- `findings` ({ requirement: string, met: boolean, evidence: string }[], optional)\n",
    );
    expect(reportSection(ScoutOutput)).toContain("- `artifacts` (string[], optional): Paths written");
  });

  it("renders unions, nullable and optional nested fields", () => {
    const Custom = defineOutputType(
      "CustomOutput",
      z.object({
        status: z.enum(["success", "fail"]),
        exit_code: z.number().int().nullable().describe("Exit status,\n  or null when killed"),
        levels: z.array(z.enum(["low", "high"])).optional(),
        file: z.object({ path: z.string(), note: z.string().optional() }),
      }),
      { status: "success", exit_code: 0, file: { path: "a.ts" } },
    );
    const fields = reportSection(Custom).split("Fields:\n")[1];
    expect(fields).toBe(
      [
        '- `status` ("success" | "fail", required)',
        "- `exit_code` (integer | null, required): Exit status, or null when killed",
        '- `levels` (("low" | "high")[], optional)',
        "- `file` ({ path: string, note?: string }, required)",
      ].join("\n"),
    );
  });
});

describe("outputJsonSchema", () => {
  it("requires status with its enum and leaves defaulted fields optional", () => {
    const schema = outputJsonSchema(ReviewOutput);
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["status"]);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.status?.enum).toEqual(["success", "fail"]);
    expect(Object.keys(properties)).toEqual([
      "status",
      "summary",
      "artifacts",
      "notes_for_next_agent",
      "approved",
      "findings",
      "blocking",
    ]);
  });

  it("keeps fields without a default required", () => {
    expect(outputJsonSchema(builtinOutputTypes.VerifyOutput).required).toEqual(["status", "suite", "passed"]);
  });
});
