import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../../src/library.js";
import { codexRuntime } from "../../../src/runtimes/codex/index.js";
import type { AgentSendObserver } from "../../../src/runtimes/runtime.js";
import type { FakeScript } from "../../../src/testing/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { type CliWorld, engineRepo } from "../cli-harness.js";
import {
  envelopeRows,
  GENERIC_SCHEMA,
  type LoggedLine,
  nativeSummaries,
  responsesFormat,
  traceLogs,
  VALID_ENVELOPE,
} from "../native-schema-helpers.js";
import {
  CODEX_TEST_MODEL,
  codexBin,
  codexObserver,
  codexRequest,
  createCodexWorld,
  inputMessages,
  modelRequests,
} from "./codex-world.js";

const worlds: CliWorld[] = [];
async function world(script?: FakeScript): Promise<CliWorld> {
  const created = await createCodexWorld(script);
  worlds.push(created);
  return created;
}
afterEach(async () => {
  for (const created of worlds.splice(0)) await created.cleanup();
});

/** codexObserver (argv of every process) that also keeps log details. */
function observerWithDetails(): ReturnType<typeof codexObserver> & { lines: LoggedLine[] } {
  const base = codexObserver();
  const lines: LoggedLine[] = [];
  const observer: AgentSendObserver = {
    ...base,
    onLog(message, details) {
      base.logs.push(message);
      lines.push({ message, details: details ?? {} });
    },
  };
  return Object.assign(base, observer, { lines });
}

/** GenericOutput as codex must send it under OpenAI's strict mode. */
const STRICT_GENERIC = {
  type: "object",
  properties: {
    status: { type: "string", enum: ["success", "fail"], description: expect.any(String) },
    summary: { anyOf: [{ type: "string", description: expect.any(String) }, { type: "null" }] },
    artifacts: {
      anyOf: [
        { type: "array", items: { type: "string" }, description: expect.any(String) },
        { type: "null" },
      ],
    },
    notes_for_next_agent: { anyOf: [{ type: "string", description: expect.any(String) }, { type: "null" }] },
  },
  required: ["status", "summary", "artifacts", "notes_for_next_agent"],
  additionalProperties: false,
};

describe("codex native structured output (--output-schema, real CLI against the fake model)", () => {
  it("passes a strict form of the schema on the first and the resumed send and removes the forced nulls", async () => {
    const w = await world({
      steps: [
        {
          match: { text: "TURN-1", nativeSchema: true },
          // Strict mode makes the model send every field; the optional ones it leaves empty come as null.
          structured: { status: "success", summary: "first", artifacts: null, notes_for_next_agent: null },
        },
        {
          match: { text: "TURN-2", nativeSchema: true },
          structured: { ...VALID_ENVELOPE, summary: "second" },
        },
      ],
    });
    const observer = observerWithDetails();
    const first = await codexRuntime.send(
      codexRequest(w, { prompt: "TURN-1 report", outputSchema: GENERIC_SCHEMA }),
      observer,
    );
    expect(first.ok, first.error).toBe(true);
    expect(JSON.parse(first.text)).toEqual({ status: "success", summary: "first" });
    const second = await codexRuntime.send(
      codexRequest(w, {
        prompt: "TURN-2 report again",
        resume: true,
        nativeSessionId: first.nativeSessionId,
        outputSchema: GENERIC_SCHEMA,
      }),
      observer,
    );
    expect(second.ok, second.error).toBe(true);
    expect(JSON.parse(second.text)).toEqual({ ...VALID_ENVELOPE, summary: "second" });

    const requests = modelRequests(w);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(responsesFormat(request)).toEqual({
        type: "json_schema",
        name: "codex_output_schema",
        strict: true,
        schema: STRICT_GENERIC,
      });
    }
    expect(inputMessages(requests[1]).some((m) => m.text.includes("TURN-1 report"))).toBe(true);
    // --output-schema is an exec-level option, so it goes before `resume` and is passed every time.
    const [argv1, argv2] = observer.commands;
    const file = argv1?.[(argv1?.indexOf("--output-schema") ?? -2) + 1] ?? "";
    expect(file.startsWith(codexRequest(w).sessionDir)).toBe(true);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(STRICT_GENERIC);
    expect(argv2?.indexOf("--output-schema")).toBeLessThan(argv2?.indexOf("resume") ?? -1);
    expect(argv2?.indexOf("resume")).toBeGreaterThan(0);
    expect(nativeSummaries(observer.lines).map((line) => line.details)).toEqual([
      expect.objectContaining({ native_schema: true, strict: true, nullable_fields: 3, nulls_removed: 2 }),
      expect.objectContaining({ native_schema: true, strict: true, nullable_fields: 3, nulls_removed: 0 }),
    ]);
    expect(w.server.egress()).toEqual([]);
  }, 180_000);

  it("does not pass a schema strict mode cannot express, and says why", async () => {
    const w = await world({
      steps: [{ match: { text: "TURN-1", nativeSchema: false }, reply: '{"anything": 1}' }],
    });
    const observer = observerWithDetails();
    const free = { type: "object", properties: { anything: {} }, required: ["anything"] };
    const result = await codexRuntime.send(
      codexRequest(w, { prompt: "TURN-1", outputSchema: free }),
      observer,
    );
    expect(result.ok, result.error).toBe(true);
    expect(result.text).toBe('{"anything": 1}');
    expect(responsesFormat(modelRequests(w)[0])?.type).not.toBe("json_schema");
    expect(observer.commands[0]).not.toContain("--output-schema");
    const [summary] = nativeSummaries(observer.lines);
    expect(summary?.details).toEqual({ layer: "native", native_schema: false });
    expect(summary?.message).toContain("field anything accepts any value");
  }, 120_000);
});

describe("codex native structured output through the engine", () => {
  it("accepts a structured reply with no door correction, and the door still gates it", async () => {
    const w = await world({
      steps: [
        {
          match: { text: "TURN-1", nativeSchema: true },
          // Without the schema the model would have sent this broken text; the strict format holds it.
          reply: 'Done. {"status": "succ',
          // Valid for the schema, but the artifact does not exist: the artifactsExist gate fails.
          structured: { ...VALID_ENVELOPE, artifacts: ["missing.md"], notes_for_next_agent: null },
        },
        { match: { text: "checking its claims", nativeSchema: true }, structured: VALID_ENVELOPE },
      ],
    });
    const repo = engineRepo(w, { codingAgent: "codex", model: CODEX_TEST_MODEL, command: [codexBin] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 answer with the envelope",
      config: repo.config,
      runtimes: [codexRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    expect(envelopeRows(repo.query)).toEqual([
      [1, "initial"],
      [1, "gate_fix"],
    ]);
    const requests = modelRequests(w);
    expect(requests).toHaveLength(2);
    expect(requests.map((request) => responsesFormat(request)?.schema)).toEqual([
      STRICT_GENERIC,
      STRICT_GENERIC,
    ]);
    const native = nativeSummaries(traceLogs(repo.query));
    expect(native.map((line) => line.details.reply_json)).toEqual([true, true]);
    expect(native[0]?.details.nulls_removed).toBe(1);
  }, 180_000);
});
