import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/load-config.js";

const committedPath = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../schema/sssf.config.schema.json",
);

describe("configJsonSchema", () => {
  it("matches the committed schema file byte for byte (regenerate: npx tsx scripts/generate-config-schema.ts)", () => {
    const committed = readFileSync(committedPath, "utf8");
    expect(committed).toBe(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  });

  it("is draft 2020-12, closes every object and documents its fields", () => {
    const schema = configJsonSchema();
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(["agents"]);
    const objects: Record<string, unknown>[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const record = node as Record<string, unknown>;
        if (record.type === "object" && record.properties) objects.push(record);
        Object.values(record).forEach(walk);
      }
    };
    walk(schema);
    expect(objects.length).toBeGreaterThanOrEqual(8);
    for (const object of objects) expect(object.additionalProperties).toBe(false);
    const agent = (schema.properties as Record<string, { items: { properties: Record<string, unknown> } }>)
      .agents?.items.properties;
    expect(Object.keys(agent ?? {})).toContain("prompt_engineering");
    expect(agent?.writes).toMatchObject({ description: expect.any(String), default: ["**"] });
  });
});
