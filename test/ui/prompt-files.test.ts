import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEXT_LIMIT } from "../../src/ui/server/api-types.js";
import { contextWindowFor } from "../../src/ui/server/model-windows.js";
import { readPhasePrompts } from "../../src/ui/server/prompt-files.js";
import { TraceWorld } from "./ui-fixtures.js";

let world: TraceWorld;
beforeEach(async () => {
  world = await TraceWorld.open();
});
afterEach(() => world.cleanup());

describe("readPhasePrompts", () => {
  it("reads only the phase's own sends, by attempt, and never leaves the sessions folder", () => {
    world.prompt("s1", "builder", "p10-build-1-initial.user.md", "ten");
    world.prompt("s1", "builder", "p10-build-2-gate_fix.user.md", "fix the gate");
    world.prompt("s1", "builder", "p01-build-1-initial.user.md", "one");
    world.prompt("s1", "builder", "p10-build-notes.md", "not a send");
    world.prompt("s1", "builder", "p10-build-3-initial.user.md", "x".repeat(TEXT_LIMIT + 10));
    const outside = path.join(world.dir, "secret", "prompts");
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, "p10-build-1-initial.user.md"), "secret");

    const { prompts } = readPhasePrompts(world.sessionsDir, "s1", { number: 10, name: "build" }, [
      "builder",
      "../../secret",
      "missing",
    ]);
    expect(prompts.map((p) => [p.attempt, p.reason, p.text.length, p.cut])).toEqual([
      [1, "initial", 3, 0],
      [2, "gate_fix", 12, 0],
      [3, "initial", TEXT_LIMIT, 1],
    ]);
    expect(readPhasePrompts(world.sessionsDir, "../s1", { number: 10, name: "build" }, ["builder"])).toEqual({
      prompts: [],
      system_prompts: [],
    });
  });
});

describe("contextWindowFor", () => {
  it("knows the common model families with or without a provider prefix, and nothing else", () => {
    expect(contextWindowFor("anthropic/claude-sonnet-4-5")).toBe(200_000);
    expect(contextWindowFor("gpt-5-codex")).toBe(400_000);
    expect(contextWindowFor("google/gemini-2.5-pro")).toBe(1_048_576);
    expect(contextWindowFor("my-local-model")).toBeNull();
    expect(contextWindowFor("")).toBeNull();
  });
});
