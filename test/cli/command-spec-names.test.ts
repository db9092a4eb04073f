import { readdirSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CommandSpec } from "../../src/cli/command-spec.js";
import { repoRoot } from "../helpers/sandbox.js";

/** Every `*-spec.ts` of the CLI, with each CommandSpec it exports. */
async function specs(): Promise<[string, CommandSpec][]> {
  const cli = path.join(repoRoot, "src/cli");
  const files = readdirSync(cli, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith("-spec.ts"));
  const found: [string, CommandSpec][] = [];
  for (const file of files) {
    const module = (await import(path.join(cli, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module))
      if (name.endsWith("Spec")) found.push([`${file} ${name}`, value as CommandSpec]);
  }
  return found;
}

describe("command specs", () => {
  // A start registers only the spec naming its command (program.ts), so a wrong list would hide one.
  it("name exactly the top-level commands they register, and no two name the same", async () => {
    const all = await specs();
    expect(all.length).toBeGreaterThanOrEqual(17);
    const seen: string[] = [];
    for (const [where, spec] of all) {
      const program = new Command("sssf");
      spec.register(program);
      expect([...spec.names].sort(), where).toEqual(program.commands.map((c) => c.name()).sort());
      seen.push(...spec.names);
    }
    expect(new Set(seen).size).toBe(seen.length);
  });
});
