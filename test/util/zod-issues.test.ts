import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configIssueMessage, zodIssueProblems } from "../../src/util/zod-issues.js";

const schema = z.strictObject({
  coding_agent: z.string(),
  timeouts: z.strictObject({ idle_seconds: z.number().int() }),
  tools: z.array(z.string()).min(1),
});
const value = { codingAgent: "pi", timeouts: { idle_seconds: 1.5 }, tools: [] };

describe("zodIssueProblems", () => {
  it("words the same issues for an agent fixing its JSON", () => {
    const parsed = schema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(zodIssueProblems(parsed.error?.issues ?? [], { wording: "agent", value })).toEqual([
      { path: "coding_agent", message: "required field is missing (expected string)" },
      { path: "timeouts.idle_seconds", message: "expected integer, got 1.5" },
      { path: "tools", message: "must have at least 1 item, got 0 items" },
      { path: "codingAgent", message: "unexpected field; remove it" },
    ]);
  });

  it("and for a person fixing a config file, with the key a typo meant", () => {
    const parsed = schema.safeParse(value, { reportInput: true, error: configIssueMessage });
    expect(zodIssueProblems(parsed.error?.issues ?? [], { wording: "config", schema })).toEqual([
      { path: "coding_agent", message: "required" },
      { path: "timeouts.idle_seconds", message: "expected an integer, got 1.5" },
      { path: "tools", message: "expected at least 1 item(s)" },
      { path: "codingAgent", message: 'unknown key (did you mean "coding_agent"?)' },
    ]);
  });
});
