import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow } from "../../src/api/run-api.js";
import type { SendHook, SendInfo, SendOutcome } from "../../src/api/send-hook.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import { runWorkflow } from "../../src/library.js";
import { createRepo, ok, type Repo } from "./workflow-fixture.js";

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

interface Seen {
  opened: SendInfo[];
  tools: string[][];
  outcomes: SendOutcome[];
}

/** A hook that records what it is shown and fails the phase when `failWhen` says so. */
function recordingHook(
  seen: Seen,
  failWhen: (outcome: SendOutcome) => string | null = () => null,
  readsToolCalls?: boolean,
): SendHook {
  return {
    name: "recording",
    open(send) {
      seen.opened.push(send);
      const tools: string[] = [];
      seen.tools.push(tools);
      return {
        ...(readsToolCalls === undefined ? {} : { readsToolCalls }),
        onToolCall: (call) => tools.push(call.tool),
        settle(outcome) {
          seen.outcomes.push(outcome);
          const failure = failWhen(outcome);
          return {
            findings:
              failure === null
                ? []
                : [{ name: `recording: ${failure}`, payload: { why: failure }, line: `! ${failure}` }],
            failure,
          };
        },
      };
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

describe("send hooks", () => {
  it("are opened before every send, see each tool call as it streams, and settle with the result", async () => {
    repo = createRepo({
      a: [
        {
          reply: "not json",
          tool_calls: [{ tool: "write_file", write_file: { path: "a.txt", content: "1" } }],
        },
        {
          reply: ok(),
          tool_calls: [
            { tool: "bash", bash: "true" },
            { tool: "read", args: { path: "a.txt" } },
          ],
        },
      ],
    });
    const seen: Seen = { opened: [], tools: [], outcomes: [] };
    const outcome = await runWorkflow({
      workflow: oneCall,
      request: "go",
      config: repo.config,
      sendHooks: [recordingHook(seen)],
    });
    expect(outcome.exitCode).toBe(0);
    expect(seen.opened.map((s) => [s.agent, s.attempt, s.reason, s.phase.name])).toEqual([
      ["a", 1, "initial", "work"],
      ["a", 2, "json_fix", "work"],
    ]);
    expect(seen.tools).toEqual([["write_file"], ["bash", "read"]]);
    expect(seen.outcomes.map((o) => o.kind)).toEqual(["result", "result"]);
    expect(seen.outcomes.map((o) => o.toolCalls.length)).toEqual([1, 2]);
  });

  it("keep no list of the calls when no hook's settle reads it; one hook that reads it gets them all", async () => {
    const script = () => ({
      a: [
        {
          reply: ok(),
          tool_calls: [
            { tool: "bash", bash: "true" },
            { tool: "write_file", write_file: { path: "a.txt", content: "1" } },
          ],
        },
      ],
    });
    repo = createRepo(script());
    const streaming: Seen = { opened: [], tools: [], outcomes: [] };
    await runWorkflow({
      workflow: oneCall,
      request: "go",
      config: repo.config,
      sendHooks: [recordingHook(streaming, () => null, false)],
    });
    // Every call still streams to the hook; only the list at settle is left empty.
    expect(streaming.tools).toEqual([["bash", "write_file"]]);
    expect(streaming.outcomes.map((o) => o.toolCalls.length)).toEqual([0]);
    repo.cleanup();

    repo = createRepo(script());
    const both: Seen = { opened: [], tools: [], outcomes: [] };
    const reading: Seen = { opened: [], tools: [], outcomes: [] };
    await runWorkflow({
      workflow: oneCall,
      request: "go",
      config: repo.config,
      sendHooks: [recordingHook(both, () => null, false), recordingHook(reading)],
    });
    expect(reading.outcomes.map((o) => o.toolCalls.map((c) => c.tool))).toEqual([["bash", "write_file"]]);
  });

  it("settle after a failed send too, and a hook's failure fails the phase with its finding traced", async () => {
    repo = createRepo({ a: [{ no_result: true, exit_code: 3 }] });
    const seen: Seen = { opened: [], tools: [], outcomes: [] };
    const failed = await runWorkflow({
      workflow: oneCall,
      request: "go",
      config: repo.config,
      sendHooks: [
        recordingHook(seen, (o) => (o.kind === "result" && !o.result.ok ? "saw the agent fail" : null)),
      ],
    });
    expect(failed.exitCode).toBe(1);
    expect(seen.outcomes).toHaveLength(1);
    expect(failed.phases[0]?.error).toMatch(/^saw the agent fail; the call failed/);
    expect(
      repo.query<{ name: string; payload: string }>(
        "SELECT name, payload FROM events WHERE type = 'error' AND name LIKE 'recording:%'",
      ),
    ).toEqual([
      { name: "recording: saw the agent fail", payload: JSON.stringify({ why: "saw the agent fail" }) },
    ]);
  });

  it("fail the phase on a valid reply when a hook says so, after the attempt's row is recorded", async () => {
    repo = createRepo({ a: [{ reply: ok({ summary: "done" }) }] });
    const seen: Seen = { opened: [], tools: [], outcomes: [] };
    const outcome = await runWorkflow({
      workflow: oneCall,
      request: "go",
      config: repo.config,
      sendHooks: [recordingHook(seen, () => "budget spent")],
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.phases[0]?.error).toBe("budget spent");
    expect(repo.query("SELECT valid, status FROM envelopes")).toEqual([{ valid: 1, status: "success" }]);
  });

  it("that fail to open fail the phase before the agent is called", async () => {
    repo = createRepo({ a: [{ reply: ok() }] });
    const broken: SendHook = {
      name: "broken",
      open() {
        throw new Error("cannot snapshot");
      },
    };
    const outcome = await runWorkflow({
      workflow: oneCall,
      request: "go",
      config: repo.config,
      sendHooks: [broken],
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.phases[0]?.error).toBe("cannot snapshot");
    expect(repo.agents.a?.sends()).toHaveLength(0);
  });
});
