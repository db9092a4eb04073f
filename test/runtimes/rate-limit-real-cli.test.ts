/**
 * Rate limits and spent quotas through the built CLI with the real pi and claude against the fake
 * model (`sssf run --fake-script`, e2e: `npm run build` first): the fake answers scripted HTTP errors
 * (429 with retry-after, a usage-limit reply), the runtime recognises them from its CLI's stream, and
 * the engine waits, falls back or fails naming the limit. Waits are 1–2 s, bounds a few seconds.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeScript } from "../../src/testing/index.js";
import { Sandbox } from "../helpers/sandbox.js";
import { claudeBinary } from "./claude-code/claude-code-world.js";
import { piBinary } from "./pi/pi-world.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const done = JSON.stringify({ status: "success", summary: "done" });

function agentPrompts(name: string): void {
  const dir = path.join(sb.dir, "adws/adw_data/prompt_engineering", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "system.md"), `# ${name}\n\nReply with the JSON report.\n`);
  writeFileSync(path.join(dir, "user.md"), "# Task\n\n{{prompt}}\n");
}

function setup(agents: Record<string, unknown>[], limits: Record<string, unknown>): void {
  for (const agent of agents) agentPrompts(String(agent.name));
  sb.writeConfig({ sandbox: { mode: "off" }, limits, agents });
}

function script(value: FakeScript): string {
  const file = path.join(sb.agentsDir, "script.json");
  writeFileSync(file, JSON.stringify(value));
  return file;
}

interface Notice {
  type: string;
  agent: string;
  payload: Record<string, unknown>;
}

function notices(): Notice[] {
  return sb
    .query<{ type: string; agent: string; payload: string }>(
      "SELECT type, agent, payload FROM events WHERE type IN ('rate_limited', 'fallback') ORDER BY rowid",
    )
    .map((row) => ({ ...row, payload: JSON.parse(row.payload) }));
}

const pi = { name: "helper", coding_agent: "pi", command: [piBinary] };
// claude retries a 429 itself (honouring retry-after) up to CLAUDE_CODE_MAX_RETRIES times first.
const claude = (name: string, retries: string) => ({
  name,
  coding_agent: "claude_code",
  command: [claudeBinary],
  model: "claude-fake",
  tools: [],
  env: { CLAUDE_CODE_MAX_RETRIES: retries },
});

describe("rate limits with real CLIs against the fake model", () => {
  it("pi: a scripted 429 (retry-after: 1) is recognised, waited out, and the same session succeeds", async () => {
    setup([pi], { rate_limit_wait_seconds: 10 });
    const file = script({
      steps: [
        { match: { hasTools: true }, httpError: { status: 429, headers: { "retry-after": "1" } } },
        { match: { hasTools: true }, reply: done },
      ],
    });
    const result = await sb.run(["run", "prompt", "say done", "--fake-script", file]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // pi passes no retry-after on: sssf's own backoff (2 s) applies.
    expect(result.stdout).toContain(
      "! helper: rate limited (no reset time given); waiting 2s, then sending again in the same session",
    );
    expect(notices()).toEqual([
      expect.objectContaining({
        type: "rate_limited",
        agent: "helper",
        payload: expect.objectContaining({
          error_kind: "rate_limited",
          wait_ms: 2000,
          error: expect.stringContaining("429 Rate limit reached"),
        }),
      }),
    ]);
    // Both sends went into one sssf session: the retry continued it.
    const sessions = sb.query<{ session: string }>(
      "SELECT json_extract(payload, '$.session_id') AS session FROM events WHERE type = 'agent_start' ORDER BY rowid",
    );
    expect(sessions).toHaveLength(2);
    expect(new Set(sessions.map((row) => row.session)).size).toBe(1);
  });

  it("claude: a 429 with retry-after (after claude's own retry) is waited out with claude's delay, then succeeds", async () => {
    setup([claude("writer", "1")], { rate_limit_wait_seconds: 10 });
    const file = script({
      steps: [
        { match: { hasTools: true }, httpError: { status: 429, headers: { "retry-after": "1" } }, times: 2 },
        { match: { hasTools: true }, reply: done },
      ],
    });
    const result = await sb.run(["run", "prompt", "say done", "--fake-script", file]);
    expect(result.code).toBe(0);
    const [wait] = notices();
    expect(wait).toMatchObject({ type: "rate_limited", agent: "writer" });
    expect(wait?.payload.error_kind).toBe("rate_limited");
    // claude's api_retry delay honours retry-after: 1 s, plus its jitter.
    expect(wait?.payload.retry_after_ms).toBeGreaterThanOrEqual(1000);
    expect(wait?.payload.retry_after_ms).toBeLessThan(3000);
    expect(result.stdout).toMatch(
      /! writer \(claude-fake\): rate limited \(retry after \d+(\.\d+)?s\); waiting/,
    );
  });

  it("a usage-limit reply moves pi to its fallback agent (claude) with a notice", async () => {
    setup([{ ...pi, fallback: [{ agent: "writer" }] }, claude("writer", "0")], {
      rate_limit_wait_seconds: 5,
    });
    const file = script({
      steps: [
        {
          match: { hasTools: true, api: "openai-chat" },
          httpError: { status: 429, kind: "usage_limit" },
        },
        { match: { hasTools: true, api: "anthropic" }, reply: done },
      ],
    });
    const result = await sb.run(["run", "prompt", "say done", "--agent", "helper", "--fake-script", file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "! helper: usage limit reached (no reset time given); falling back to agent writer",
    );
    expect(notices()).toEqual([
      expect.objectContaining({
        type: "fallback",
        agent: "helper",
        payload: expect.objectContaining({ error_kind: "usage_limit", from: "helper", to: "agent writer" }),
      }),
    ]);
  });

  it("exhausted fallbacks fail the phase with the error kind and the reset time", async () => {
    setup([{ ...claude("writer", "0"), fallback: ["claude-fake-2"] }], { rate_limit_wait_seconds: 2 });
    const body = {
      type: "error",
      error: {
        type: "rate_limit_error",
        message: "You've hit your usage limit; resets at 2031-01-02T03:04:05Z",
      },
    };
    const file = script({
      steps: [{ match: { hasTools: true }, httpError: { status: 429, body }, times: 2 }],
    });
    const result = await sb.run(["run", "prompt", "say done", "--fake-script", file]);
    expect(result.code).toBe(1);
    const [phase] = sb.query<{ error: string }>("SELECT error FROM phases WHERE kind = 'agent'");
    expect(phase?.error).toContain("call failed (usage_limit)");
    expect(phase?.error).toContain("resets at 2031-01-02T03:04:05.000Z; every fallback tried");
    expect(notices().map((notice) => [notice.type, notice.payload.to])).toEqual([
      ["fallback", "model claude-fake-2"],
    ]);
  });
});
