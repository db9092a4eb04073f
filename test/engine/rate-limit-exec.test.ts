import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";

// Through the real CLI (dist/: `npm run build` first) with scripted exec agents that report rate
// limits and spent quotas the sssf-exec/1 way, in chosen orders. Waits are 1 s; bounds a few seconds.
process.env.SSSF_SANDBOX = "off";

interface EventRow {
  type: string;
  name: string;
  agent: string | null;
  payload: string;
}

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const done = envelopeJson({ summary: "done" });
const limited = (retry_after_ms?: number) => ({
  error: {
    message: "429 Too Many Requests",
    kind: "rate_limited" as const,
    ...(retry_after_ms === undefined ? {} : { retry_after_ms }),
  },
});
const quota = (resets_at?: string) => ({
  error: {
    message: "You've hit your usage limit",
    kind: "usage_limit" as const,
    ...(resets_at === undefined ? {} : { resets_at }),
  },
});

function notices(): { type: string; agent: string | null; payload: Record<string, unknown> }[] {
  return sb
    .query<EventRow>(
      "SELECT type, name, agent, payload FROM events WHERE type IN ('rate_limited', 'fallback') ORDER BY rowid",
    )
    .map((row) => ({ type: row.type, agent: row.agent, payload: JSON.parse(row.payload) }));
}

describe("rate limits and quotas through the CLI (exec agents)", () => {
  it("waits out two rate limits (retry_after_ms) and sends again in the same session, then succeeds", async () => {
    sb.setup([{ name: "assistant", turns: [limited(1000), limited(1000), { reply: done }] }], {
      limits: { rate_limit_wait_seconds: 5 },
    });
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "assistant: rate limited (retry after 1s); waiting 1s, then sending again in the same session",
    );
    const sends = sb.agent("assistant").sends();
    expect(sends.map((send) => [send.turn, send.resume])).toEqual([
      [0, false],
      [1, true],
      [2, true],
    ]);
    expect(new Set(sends.map((send) => send.session_id)).size).toBe(1);
    expect(notices()).toEqual([
      expect.objectContaining({
        type: "rate_limited",
        agent: "assistant",
        payload: expect.objectContaining({ error_kind: "rate_limited", retry_after_ms: 1000, wait_ms: 1000 }),
      }),
      expect.objectContaining({ type: "rate_limited", payload: expect.objectContaining({ wait_ms: 1000 }) }),
    ]);
    const agentEnds = sb.query<{ name: string }>(
      "SELECT name FROM events WHERE type = 'agent_end' ORDER BY rowid",
    );
    expect(agentEnds.map((row) => row.name)).toEqual([
      "assistant failed: rate_limited",
      "assistant failed: rate_limited",
      "assistant replied",
    ]);
  });

  it("moves a spent quota with no reset time to the next fallback model at once, with a notice", async () => {
    sb.setup(
      [
        {
          name: "assistant",
          turns: [
            { match_model: "main-model", ...quota() },
            { match_model: "backup-model", reply: done },
          ],
          extra: { model: "main-model", fallback: ["backup-model"] },
        },
      ],
      { limits: { rate_limit_wait_seconds: 30 } },
    );
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "assistant (main-model): usage limit reached (no reset time given); falling back to model backup-model",
    );
    expect(
      sb
        .agent("assistant")
        .sends()
        .map((send) => send.turn),
    ).toEqual([0, 1]);
    expect(notices()).toEqual([
      expect.objectContaining({
        type: "fallback",
        payload: expect.objectContaining({
          error_kind: "usage_limit",
          from: "assistant (main-model)",
          to: "model backup-model",
        }),
      }),
    ]);
  });

  it("falls back to another agent when the reset lies beyond limits.rate_limit_wait_seconds", async () => {
    sb.setup(
      [
        { name: "assistant", turns: [limited(60_000)], extra: { fallback: [{ agent: "spare" }] } },
        { name: "spare", turns: [{ reply: done }] },
      ],
      { limits: { rate_limit_wait_seconds: 2 } },
    );
    const result = await sb.run(["run", "prompt", "build it", "--agent", "assistant"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("assistant: rate limited (retry after 60s); falling back to agent spare");
    expect(sb.agent("assistant").sends()).toHaveLength(1);
    expect(sb.agent("spare").sends()).toEqual([expect.objectContaining({ turn: 0, resume: false })]);
    expect(notices().map((notice) => notice.type)).toEqual(["fallback"]);
    const spareStart = sb.query<{ agent: string }>(
      "SELECT agent FROM events WHERE type = 'agent_start' ORDER BY rowid",
    );
    expect(spareStart.map((row) => row.agent)).toEqual(["assistant", "spare"]);
  });

  it("fails the phase with the error kind and the reset time once every fallback is spent", async () => {
    const resets = "2031-01-02T03:04:05.000Z";
    sb.setup(
      [
        {
          name: "assistant",
          turns: [
            { match_model: "main-model", ...quota(resets) },
            { match_model: "backup-model", ...quota(resets) },
          ],
          extra: { model: "main-model", fallback: ["backup-model"] },
        },
      ],
      { limits: { rate_limit_wait_seconds: 3 } },
    );
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(1);
    const [phase] = sb.query<{ status: string; error: string }>(
      "SELECT status, error FROM phases WHERE kind = 'agent'",
    );
    expect(phase?.status).toBe("fail");
    expect(phase?.error).toContain("call failed (usage_limit)");
    expect(phase?.error).toContain(`resets at ${resets}; every fallback tried`);
    expect(notices().map((notice) => notice.type)).toEqual(["fallback"]);
  });

  it("waits with a doubling backoff when the agent gives no reset hint", async () => {
    sb.setup([{ name: "assistant", turns: [limited(), { reply: done }] }], {
      limits: { rate_limit_wait_seconds: 10 },
    });
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("assistant: rate limited (no reset time given); waiting 2s");
  });

  it("does not wait at all with rate_limit_wait_seconds: 0, and with no fallback fails naming the limit", async () => {
    sb.setup([{ name: "assistant", turns: [limited(1000), { reply: done }] }], {
      limits: { rate_limit_wait_seconds: 0 },
    });
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("call failed (rate_limited)");
    expect(result.stdout).toContain("retry after 1s; no fallback configured");
    expect(sb.agent("assistant").sends()).toHaveLength(1);
  });
});

describe("the run's time budget", () => {
  it("takes no wait that would outlast limits.max_run_seconds: the send moves on (here: fails) at once", async () => {
    sb.setup([{ name: "assistant", turns: [limited(20_000), { reply: done }] }], {
      limits: { rate_limit_wait_seconds: 60, max_run_seconds: 10 },
    });
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("call failed (rate_limited)");
    expect(result.stdout).toContain("(retry after 20s; no fallback configured)");
    expect(notices()).toEqual([]);
  });
});

describe("a wait is interruptible", () => {
  it("SIGINT during a long wait ends the run at once, the phase failed as aborted", async () => {
    sb.setup([{ name: "assistant", turns: [limited(600_000), { reply: done }] }], {
      limits: { rate_limit_wait_seconds: 900 },
    });
    const child = sb.start(["run", "prompt", "build it"]);
    const finished = collect(child);
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    await waitFor(() => stdout.includes("waiting 600s"), 30_000, "the wait to begin");
    child.kill("SIGINT");
    const result = await finished;
    expect(result.code).not.toBe(0);
    expect(sb.agent("assistant").sends()).toHaveLength(1);
    const [phase] = sb.query<{ status: string; error: string | null }>(
      "SELECT status, error FROM phases WHERE kind = 'agent'",
    );
    expect(phase?.status).toBe("fail");
    expect(phase?.error).toContain("aborted while waiting out the limit");
  });
});

describe("fallback config", () => {
  it("refuses a fallback agent with a different output contract: one line, exit 2", async () => {
    sb.setup([
      { name: "assistant", turns: [], extra: { fallback: [{ agent: "writer" }] } },
      {
        name: "writer",
        turns: [],
        userPrompt: "# Task\n\n{{prompt}}\n\n## Report\n\nEnd with `**Status**: success`.\n",
      },
    ]);
    const result = await sb.run(["run", "prompt", "build it", "--agent", "assistant"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "agents[0].fallback[0].agent: fallback agent writer has a different output contract from assistant",
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses an unknown fallback agent, naming the field and the roster", async () => {
    sb.setup([
      { name: "assistant", turns: [], extra: { fallback: ["other-model", { agent: "ghost" }] } },
      { name: "spare", turns: [] },
    ]);
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'agents[0].fallback[1].agent: unknown agent "ghost" (the roster has: spare)',
    );
  });

  it("refuses a malformed fallback entry and a negative wait bound", async () => {
    sb.setup([{ name: "assistant", turns: [], extra: { fallback: [{ model: 3 }] } }], {
      limits: { rate_limit_wait_seconds: -1 },
    });
    const result = await sb.run(["run", "prompt", "build it"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "agents[0].fallback[0]: expected a model id or { agent: <name> }, got a mapping",
    );
    expect(result.stderr).toContain("limits.rate_limit_wait_seconds: expected at least 0, got -1");
  });
});
