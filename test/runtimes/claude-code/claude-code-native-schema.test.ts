import { afterEach, describe, expect, it } from "vitest";
import { parseEnvelope } from "../../../src/envelope/parse-envelope.js";
import { GenericOutput } from "../../../src/envelope/schemas.js";
import { runWorkflow } from "../../../src/library.js";
import { claudeCodeRuntime } from "../../../src/runtimes/claude-code/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { engineRepo } from "../cli-harness.js";
import {
  envelopeRows,
  GENERIC_SCHEMA,
  nativeObserver,
  nativeSummaries,
  structuredOutputTool,
  traceLogs,
  VALID_ENVELOPE,
} from "../native-schema-helpers.js";
import { type ClaudeWorld, claudeBinary, createClaudeWorld, userTexts } from "./claude-code-world.js";

let world: ClaudeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** What claude offers the model for the schema: the schema without zod's `$schema` dialect. */
const { $schema: _dialect, ...SCHEMA_AS_SENT } = GENERIC_SCHEMA;

describe("claude_code native structured output (--json-schema, real CLI against the fake model)", () => {
  it("passes the schema on the first and the resumed send and replies with the structured_output JSON", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { text: "TURN-1", nativeSchema: true, afterToolResult: false },
          structured: { ...VALID_ENVELOPE, summary: "first" },
        },
        {
          match: { text: "TURN-2", nativeSchema: true, afterToolResult: false },
          structured: { ...VALID_ENVELOPE, summary: "second" },
        },
        { match: { text: "TURN-3", nativeSchema: false }, reply: "plain text, no schema" },
      ],
    });
    const observer = nativeObserver();
    const first = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-1 report", outputSchema: GENERIC_SCHEMA }),
      observer,
    );
    expect(first.ok, first.error).toBe(true);
    expect(JSON.parse(first.text)).toEqual({ ...VALID_ENVELOPE, summary: "first" });
    const second = await claudeCodeRuntime.send(
      world.request({
        prompt: "TURN-2 report again",
        resume: true,
        nativeSessionId: first.nativeSessionId,
        outputSchema: GENERIC_SCHEMA,
      }),
      observer,
    );
    expect(second.ok, second.error).toBe(true);
    expect(JSON.parse(second.text)).toEqual({ ...VALID_ENVELOPE, summary: "second" });

    const calls = world.calls();
    expect(calls).toHaveLength(2);
    expect(structuredOutputTool(calls[0])).toEqual(SCHEMA_AS_SENT);
    expect(structuredOutputTool(calls[1])).toEqual(SCHEMA_AS_SENT);
    // The resumed prompt rides in the message that holds the first turn's StructuredOutput result.
    expect(userTexts(calls[1]).at(-1)).toContain("TURN-2 report again");
    // The structured answer is the reply, not a tool call of the agent's.
    expect(observer.toolCalls).toEqual([]);
    const summaries = nativeSummaries(observer.logs);
    expect(summaries.map((line) => line.details)).toEqual([
      expect.objectContaining({ native_schema: true, structured_output: true, calls: 1, rejected: 0 }),
      expect.objectContaining({ native_schema: true, structured_output: true, calls: 1, rejected: 0 }),
    ]);

    // A send without a schema (a Markdown-contract call) offers no StructuredOutput tool.
    const plain = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-3 no schema", resume: true, nativeSessionId: first.nativeSessionId }),
      observer,
    );
    expect(plain.ok, plain.error).toBe(true);
    expect(plain.text).toBe("plain text, no schema");
    expect(structuredOutputTool(world.calls()[2])).toBeUndefined();
    expect(nativeSummaries(observer.logs).at(-1)?.details).toEqual({ layer: "native", native_schema: false });
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  it("lets claude reject an invalid structured answer inside its own session and logs it", async () => {
    world = await createClaudeWorld({
      steps: [
        { match: { text: "TURN-1", afterToolResult: false }, structured: { status: "succ", summary: 3 } },
        { match: { afterToolResult: true, nativeSchema: true }, structured: VALID_ENVELOPE },
      ],
    });
    const observer = nativeObserver();
    const result = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-1 report", outputSchema: GENERIC_SCHEMA, tools: [] }),
      observer,
    );
    expect(result.ok, result.error).toBe(true);
    expect(JSON.parse(result.text)).toEqual(VALID_ENVELOPE);
    const calls = world.calls();
    expect(calls).toHaveLength(2);
    // tools: [] still offers the StructuredOutput tool, and only it.
    expect(structuredOutputTool(calls[0])).toEqual(SCHEMA_AS_SENT);
    const rejection = observer.logs.find((line) =>
      line.message.startsWith("claude rejected StructuredOutput"),
    );
    expect(rejection?.message).toContain("Output does not match required schema");
    expect(rejection?.details.layer).toBe("native");
    expect(nativeSummaries(observer.logs)[0]?.details).toMatchObject({
      calls: 2,
      rejected: 1,
      gave_up: false,
    });
  }, 120_000);
});

describe("claude_code native structured output when the model answers in text", () => {
  it("keeps the text answer given before claude's reminder for the door", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { text: "TURN-1", nativeSchema: true },
          reply: `Here it is: ${JSON.stringify(VALID_ENVELOPE)}`,
        },
        { match: { text: "[structured-output-enforce]" }, reply: "I already answered above." },
      ],
    });
    const observer = nativeObserver();
    const result = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-1 report", outputSchema: GENERIC_SCHEMA }),
      observer,
    );
    expect(result.ok, result.error).toBe(true);
    expect(world.calls()).toHaveLength(2);
    expect(userTexts(world.calls()[1]).at(-1)).toContain("You MUST call the StructuredOutput tool");
    expect(result.text).toBe(`Here it is: ${JSON.stringify(VALID_ENVELOPE)}\n\nI already answered above.`);
    const parsed = parseEnvelope(result.text, GenericOutput);
    expect(parsed.ok).toBe(true);
    expect(nativeSummaries(observer.logs)[0]?.details).toMatchObject({
      structured_output: false,
      calls: 0,
      reminders: 1,
    });
  }, 120_000);

  it("with MAX_STRUCTURED_OUTPUT_RETRIES=0 in the agent's env, hands a text answer to the door after one request", async () => {
    world = await createClaudeWorld({
      steps: [{ match: { text: "TURN-1", nativeSchema: true }, reply: 'Done. {"status": "succ' }],
    });
    const observer = nativeObserver();
    const env = { ...world.env, MAX_STRUCTURED_OUTPUT_RETRIES: "0" };
    const result = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-1 report", outputSchema: GENERIC_SCHEMA, env }),
      observer,
    );
    // claude exits 1 (error_max_structured_output_retries); that is the door's case, not a failed send.
    expect(result.ok, result.error).toBe(true);
    expect(result.exitCode).toBe(1);
    expect(result.text).toBe('Done. {"status": "succ');
    expect(world.calls()).toHaveLength(1);
    const [summary] = nativeSummaries(observer.logs);
    expect(summary?.details).toMatchObject({ gave_up: true, calls: 0, structured_output: false });
    expect(summary?.message).toContain("the door judges the model's text");
  }, 120_000);
});

describe("claude_code native structured output through the engine", () => {
  it("accepts a structured reply with no door correction, and the door still gates it", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { text: "TURN-1", nativeSchema: true, afterToolResult: false },
          // Valid for claude's schema, but the artifact does not exist: the artifactsExist gate fails.
          structured: { ...VALID_ENVELOPE, artifacts: ["missing.md"] },
        },
        {
          match: { text: "checking its claims", nativeSchema: true, afterToolResult: false },
          structured: VALID_ENVELOPE,
        },
      ],
    });
    const repo = engineRepo(world, { codingAgent: "claude_code", command: [claudeBinary] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      config: repo.config,
      runtimes: [claudeCodeRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    expect(envelopeRows(repo.query)).toEqual([
      [1, "initial"],
      [1, "gate_fix"],
    ]);
    const calls = world.calls();
    expect(calls).toHaveLength(2);
    // The gate correction is a send like any other: it carries the schema too.
    expect(calls.map(structuredOutputTool)).toEqual([SCHEMA_AS_SENT, SCHEMA_AS_SENT]);
    const native = nativeSummaries(traceLogs(repo.query));
    expect(native.map((line) => line.details.structured_output)).toEqual([true, true]);
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  it("hands the door claude's last attempt when claude gives up on the schema", async () => {
    world = await createClaudeWorld({
      steps: [
        { match: { nativeSchema: true, text: "TURN-1" }, structured: { status: "succ" }, repeat: true },
        {
          match: { nativeSchema: true, text: "could not be accepted", afterToolResult: false },
          structured: VALID_ENVELOPE,
        },
      ],
    });
    const repo = engineRepo(world, { codingAgent: "claude_code", command: [claudeBinary] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      config: repo.config,
      runtimes: [claudeCodeRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    expect(envelopeRows(repo.query)).toEqual([
      [0, "initial"],
      [1, "json_fix"],
    ]);
    const [first] = repo.query<{ raw_text: string; errors: string }>(
      "SELECT raw_text, errors FROM envelopes ORDER BY attempt",
    );
    expect(JSON.parse(first?.raw_text ?? "")).toEqual({ status: "succ" });
    expect(first?.errors).toContain("status");
    const native = nativeSummaries(traceLogs(repo.query));
    expect(native[0]?.details).toMatchObject({ gave_up: true, calls: 5, rejected: 5 });
    expect(native[1]?.details).toMatchObject({ structured_output: true, rejected: 0 });
    // Five tries inside claude, then the door's correction answered on the first try.
    expect(world.calls()).toHaveLength(6);
  }, 180_000);
});
