import { describe, expect, it } from "vitest";
import { claudeArgs } from "../../../src/runtimes/claude-code/args.js";

const base = {
  uuid: "00000000-0000-4000-8000-000000000000",
  resume: false,
  model: "",
  thinking: "off" as const,
  tools: ["read", "write"],
  systemPromptFile: "/s.md",
  jsonSchema: null,
  contextHandoffDir: "/sssf/context_handoff",
  maxBudgetUsd: undefined,
};

const settingsOf = (args: string[]) =>
  JSON.parse(args.find((arg) => arg.startsWith("--settings="))?.slice("--settings=".length) ?? "{}") as {
    sandbox?: { enabled?: boolean };
    permissions?: unknown;
  };

describe("claude's own sandbox", () => {
  it("is switched off inside sssf's box, and left to claude's settings outside it", () => {
    const inside = settingsOf(claudeArgs({ ...base, boxed: true }));
    expect(inside.sandbox).toEqual({ enabled: false });
    expect(inside.permissions).toEqual({ blockWritesOutsideWorkingDirectories: true });
    const outside = settingsOf(claudeArgs({ ...base, boxed: false }));
    expect(outside.sandbox).toBeUndefined();
  });
});
