/**
 * The send hook contract suite (docs/send-hooks.md): what every `SendHook` must honour, and what the
 * engine guarantees every hook, run for each built-in hook and for one a user registers through the
 * public API (`runWorkflow({ sendHooks })`). Each case runs a real workflow with a scripted agent;
 * the hook under test is wrapped by a spy that records what it was shown and what it answered.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow } from "../../src/api/run-api.js";
import type {
  OpenSendHook,
  SendHook,
  SendInfo,
  SendOutcome,
  SendSettlement,
} from "../../src/api/send-hook.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import { runWorkflow } from "../../src/library.js";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { waitFor } from "../helpers/wait.js";
import { createRepo, ok, type Repo } from "./workflow-fixture.js";

/** What the contract needs of one hook. */
export interface SendHookSubject {
  /** A fresh hook for a run in `repo` (one per run: a hook may keep state across its sends). */
  make(repo: Repo): SendHook;
  /**
   * Turns of the agent `a` that make this hook find something (a write outside its boundary…), and
   * the event names its findings must carry; absent for a hook that finds nothing by design.
   */
  provoke?: { turns: ScriptedTurn[]; top?: Record<string, unknown>; finding: RegExp };
}

/** Everything a hook was shown and answered, in order. */
interface Spy {
  opened: SendInfo[];
  settled: { outcome: SendOutcome; frozen: boolean; answer: SendSettlement | null; error: unknown }[];
  /** Settles that began; `settled` gets each once it ended (an async settle awaited). */
  settling: number;
  toolCalls: { frozen: boolean }[];
  onToolCallThrew: unknown[];
}

/** Wraps `hook`, recording what passes through its door without changing anything it answers. */
function spyOn(hook: SendHook): { hook: SendHook; spy: Spy } {
  const spy: Spy = { opened: [], settled: [], settling: 0, toolCalls: [], onToolCallThrew: [] };
  return {
    spy,
    hook: {
      name: hook.name,
      async open(send) {
        spy.opened.push(send);
        const inner: OpenSendHook = await hook.open(send);
        const wrapped: OpenSendHook = {
          onToolCall(call) {
            spy.toolCalls.push({ frozen: Object.isFrozen(call) });
            try {
              inner.onToolCall?.(call);
            } catch (error) {
              spy.onToolCallThrew.push(error);
            }
          },
          async settle(outcome) {
            spy.settling++;
            const frozen = Object.isFrozen(outcome) && Object.isFrozen(outcome.toolCalls);
            try {
              const answer = await inner.settle(outcome);
              spy.settled.push({ outcome, frozen, answer, error: undefined });
              return answer;
            } catch (error) {
              spy.settled.push({ outcome, frozen, answer: null, error });
              throw error;
            }
          },
        };
        if (inner.readsToolCalls !== undefined) wrapped.readsToolCalls = inner.readsToolCalls;
        return wrapped;
      },
    },
  };
}

const oneCall = defineWorkflow({
  name: "one",
  description: "",
  agents: ["a"],
  async run(run, request) {
    await run.agent("work", { owner: "a", description: "" }, (p) =>
      p.call({ outputType: GenericOutput, prompt: request }),
    );
    return run.finish({ accepted: true });
  },
});

/** A settlement as the contract allows it: findings with wire names, one line each, a failure or null. */
function expectWellFormed(answer: SendSettlement | null): void {
  expect(answer).not.toBeNull();
  expect(Array.isArray(answer?.findings)).toBe(true);
  expect(answer?.failure === null || typeof answer?.failure === "string").toBe(true);
  for (const finding of answer?.findings ?? []) {
    expect(finding.name).toMatch(/\S/);
    expect(finding.line).not.toMatch(/\n/);
    for (const key of Object.keys(finding.payload)) expect(key, finding.name).toMatch(/^[a-z][a-z0-9_]*$/);
  }
}

/** Registers the shared cases for one hook (`describe`/`it` of the calling file). */
export function describeSendHookContract(name: string, subject: SendHookSubject): void {
  describe(`send hook contract: ${name}`, () => {
    let repo: Repo | undefined;
    afterEach(() => {
      repo?.cleanup();
      repo = undefined;
    });
    const runWith = async (turns: ScriptedTurn[], hooks: (own: SendHook) => SendHook[], top = {}) => {
      repo = createRepo({ a: turns }, { top });
      const { hook, spy } = spyOn(subject.make(repo));
      const outcome = await runWorkflow({
        workflow: oneCall,
        request: "go",
        config: repo.config,
        sendHooks: hooks(hook),
      });
      return { outcome, spy, repo };
    };

    it("is opened before every send, in order, and settled once per send with a well-formed answer", async () => {
      const { outcome, spy } = await runWith(
        [
          {
            reply: "not json",
            tool_calls: [{ tool: "write", write_file: { path: "src/a.txt", content: "1" } }],
          },
          { reply: ok(), tool_calls: [{ tool: "read", args: { path: "src/a.txt" } }] },
        ],
        (own) => [own],
      );
      expect(outcome.exitCode).toBe(0);
      expect(spy.opened.map((s) => [s.agent, s.attempt, s.reason, s.phase.name])).toEqual([
        ["a", 1, "initial", "work"],
        ["a", 2, "json_fix", "work"],
      ]);
      expect(spy.settled).toHaveLength(2);
      for (const settled of spy.settled) expectWellFormed(settled.answer);
      // A clean send (every write inside src/, where every boundary here allows it) is no hook's reason to fail a phase.
      expect(spy.settled.map((s) => s.answer?.failure)).toEqual([null, null]);
      expect(spy.onToolCallThrew).toEqual([]);
    });

    it("sees each tool call and the outcome read-only, and never throws from onToolCall, whatever a call holds", async () => {
      const {
        outcome,
        spy,
        repo: r,
      } = await runWith(
        [
          {
            reply: ok({ summary: "as the agent said" }),
            tool_calls: [
              { tool: "write", write_file: { path: "src/b.txt", content: "2" } },
              { tool: "odd", args: null, ok: false, result: "EACCES: permission denied, open '/nowhere'" },
              { tool: "odd", args: { path: 42, file_path: ["x"] } },
              { tool: "bash", bash: "true" },
            ],
          },
        ],
        (own) => [own],
      );
      expect(outcome.exitCode).toBe(0);
      expect(spy.onToolCallThrew).toEqual([]);
      expect(spy.toolCalls).toHaveLength(4);
      expect(spy.toolCalls.every((c) => c.frozen)).toBe(true);
      expect(spy.settled.map((s) => s.frozen)).toEqual([true]);
      const [first] = spy.settled;
      expect(first?.outcome.kind === "result" && Object.isFrozen(first.outcome.result)).toBe(true);
      expect(r.query("SELECT valid, status FROM envelopes")).toEqual([{ valid: 1, status: "success" }]);
    });

    it("is settled after a failed agent, and the run's trace and events.jsonl keep the send", async () => {
      const {
        outcome,
        spy,
        repo: r,
      } = await runWith([{ no_result: true, exit_code: 3 }], (own) => [own], {
        limits: { retries: 0 },
      });
      expect(outcome.exitCode).toBe(1);
      expect(spy.settled).toHaveLength(1);
      const [settled] = spy.settled;
      expect(settled?.outcome.kind === "result" && settled.outcome.result.ok).toBe(false);
      expectWellFormed(settled?.answer ?? null);
      expect(r.query("SELECT count(*) AS n FROM processes")).toEqual([{ n: 1 }]);
      const file = path.join(outcome.sessionDir, "events.jsonl");
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, "utf8")).toMatch(/"table":"processes"/);
    });

    it("is still settled when a hook before it rejects; that rejection fails the phase, the trace keeps the send", async () => {
      const rejecting: SendHook = {
        name: "rejecting",
        open: () => ({ settle: () => Promise.reject(new Error("cannot tell what happened")) }),
      };
      const { outcome, spy, repo: r } = await runWith([{ reply: ok() }], (own) => [rejecting, own]);
      expect(outcome.exitCode).toBe(1);
      expect(outcome.phases[0]?.error).toMatch(/cannot tell what happened/);
      expect(spy.opened).toHaveLength(1);
      expect(spy.settled).toHaveLength(1);
      expect(r.query("SELECT count(*) AS n FROM processes")).toEqual([{ n: 1 }]);
      expect(r.agents.a?.sends()).toHaveLength(1);
    });

    it("of a killed run is settled, and the run ends only once every settle did", async () => {
      repo = createRepo({ a: [{ hang: true }] });
      const r = repo;
      const { hook, spy } = spyOn(subject.make(r));
      const abort = new AbortController();
      const running = runWorkflow({
        workflow: oneCall,
        request: "go",
        config: r.config,
        sendHooks: [hook],
        signal: abort.signal,
      });
      await waitFor(() => (r.agents.a?.sends().length ?? 0) === 1, 60_000, "the agent's send");
      abort.abort();
      const outcome = await running;
      expect(outcome.exitCode).toBe(1);
      expect(spy.opened).toHaveLength(1);
      expect(spy.settling).toBe(1);
      expect(spy.settled).toHaveLength(1);
      const [settled] = spy.settled;
      const stopped = settled?.outcome.kind === "threw" || settled?.outcome.result.ok === false;
      expect(stopped).toBe(true);
      expect(r.query("SELECT id FROM processes WHERE status = 'running'")).toEqual([]);
    });

    it.skipIf(subject.provoke === undefined)(
      "what it finds is traced as one error event per finding and fails the phase only through `failure`",
      async () => {
        const provoke = subject.provoke as NonNullable<SendHookSubject["provoke"]>;
        const { outcome, spy, repo: r } = await runWith(provoke.turns, (own) => [own], provoke.top);
        const findings = spy.settled.flatMap((s) => s.answer?.findings ?? []);
        expect(findings.length).toBeGreaterThan(0);
        for (const settled of spy.settled) expectWellFormed(settled.answer);
        const traced = r.query<{ name: string; payload: string }>(
          "SELECT name, payload FROM events WHERE type = 'error' ORDER BY started_at, id",
        );
        for (const finding of findings) {
          expect(finding.name).toMatch(provoke.finding);
          expect(traced).toContainEqual({ name: finding.name, payload: JSON.stringify(finding.payload) });
        }
        const failing = spy.settled.some((s) => s.answer?.failure !== null);
        expect(outcome.exitCode).toBe(failing ? 1 : 0);
      },
    );
  });
}
