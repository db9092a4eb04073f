import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventRow, GateResultRow } from "../../src/trace/events.js";
import { adwIdFrom, collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import {
  BUILDER_USAGE,
  buildTestRepo,
  one,
  PLANTED_SECRET,
  PLANTED_TOKEN,
  shapeOf,
  storedRun,
} from "./otel-fixture.js";
import { OtlpReceiver } from "./otlp-receiver.js";

// A real run of the built CLI (exec agent) exports its spans to an in-test OTLP/HTTP receiver; the same
// run exported again from the trace by `sssf db export --otlp` gives the same spans.

let sb: Sandbox;
let receiver: OtlpReceiver;
beforeEach(async () => {
  sb = new Sandbox();
  receiver = await OtlpReceiver.start();
});
afterEach(async () => {
  await receiver.close();
  sb.cleanup();
});

describe("a run exported over OTLP/HTTP", () => {
  it("sends the run, its phases, the send, its tool call, the gates and the suite, attribute by attribute", async () => {
    buildTestRepo(sb);
    const result = await sb.run(["run", "build-test", "add a slug helper"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).not.toContain("warning");
    const adwId = adwIdFrom(result.stdout);
    const { session, phases } = storedRun(sb, adwId);
    const spans = receiver.spans;

    // The exporter's own wire: JSON to /v1/traces.
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) {
      expect(request.path).toBe("/v1/traces");
      expect(request.contentType).toContain("application/json");
    }
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(spans[0]?.resource["service.name"]).toBe("sssf");

    // The root: the run, at the trace's own times.
    const run = one(spans, "sssf.run");
    expect(run.parentSpanId).toBe("");
    expect(run.startMs).toBe(Date.parse(session.started_at));
    expect(run.endMs).toBe(Date.parse(session.ended_at ?? ""));
    expect(run.statusCode).toBe(0);
    expect(run.attributes).toMatchObject({
      "sssf.adw_id": adwId,
      "sssf.workflow": "build-test",
      "sssf.outcome": "accepted",
      "sssf.accepted": true,
      "sssf.status": "success",
      "gen_ai.operation.name": "invoke_workflow",
      "gen_ai.workflow.name": "build-test",
      "sssf.cost_usd": BUILDER_USAGE.cost,
    });

    // One span per phase, under the run, with the phase row's fields.
    const phaseSpans = spans.filter((span) => span.name.startsWith("sssf.phase "));
    expect(phaseSpans.map((span) => span.attributes["sssf.phase.id"]).sort()).toEqual(
      phases.map((phase) => phase.id).sort(),
    );
    for (const phase of phases) {
      const span = phaseSpans.find((s) => s.attributes["sssf.phase.id"] === phase.id);
      expect(span?.name).toBe(`sssf.phase ${phase.name}`);
      expect(span?.parentSpanId).toBe(run.spanId);
      expect(span?.startMs).toBe(Date.parse(phase.started_at));
      expect(span?.endMs).toBe(Date.parse(phase.ended_at ?? ""));
      expect(span?.attributes).toEqual({
        "sssf.adw_id": adwId,
        "sssf.phase.id": phase.id,
        "sssf.phase.number": phase.number,
        "sssf.phase.name": phase.name,
        "sssf.phase.kind": phase.kind,
        "sssf.phase.owner": phase.owner,
        "sssf.phase.status": "success",
        "sssf.cost_usd": phase.cost_usd,
        "sssf.usage.input_tokens": phase.input_tokens,
        "sssf.usage.output_tokens": phase.output_tokens,
        "sssf.usage.cache_read_tokens": phase.cache_read_tokens,
        "sssf.usage.cache_write_tokens": phase.cache_write_tokens,
      });
    }
    expect(phases.map((phase) => phase.kind)).toContain("code");
    const build = one(spans, "sssf.phase build");
    const test = one(spans, "sssf.phase test");

    // The send, with the GenAI conventions and the scripted usage.
    const send = one(spans, "invoke_agent builder");
    expect(send.parentSpanId).toBe(build.spanId);
    const [sendRow] = sb.query<EventRow>(
      "SELECT * FROM events WHERE adw_id = ? AND type = 'agent_start'",
      adwId,
    );
    expect(send.startMs).toBe(Date.parse(sendRow?.started_at ?? ""));
    expect(send.endMs).toBe(Date.parse(sendRow?.ended_at ?? ""));
    expect(send.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "acme",
      "gen_ai.agent.name": "builder",
      "gen_ai.request.model": "acme/scripted-1",
      "gen_ai.response.model": "acme/scripted-1",
      "gen_ai.usage.input_tokens": BUILDER_USAGE.input_tokens,
      "gen_ai.usage.output_tokens": BUILDER_USAGE.output_tokens,
      "gen_ai.usage.cache_read.input_tokens": BUILDER_USAGE.cache_read_tokens,
      "gen_ai.usage.cache_creation.input_tokens": BUILDER_USAGE.cache_write_tokens,
      "sssf.cost_usd": BUILDER_USAGE.cost,
      "sssf.coding_agent": "exec",
      "sssf.adw_id": adwId,
      "sssf.phase.id": build.attributes["sssf.phase.id"],
      "sssf.send.reason": "initial",
      "sssf.send.attempt": 1,
    });
    expect(send.attributes["gen_ai.conversation.id"]).toEqual(expect.any(String));

    // The tool call under the send; its arguments redacted.
    const tool = one(spans, "execute_tool write");
    expect(tool.parentSpanId).toBe(send.spanId);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "write",
      "sssf.tool.ok": true,
      "sssf.phase.id": build.attributes["sssf.phase.id"],
    });
    expect(String(tool.attributes["gen_ai.tool.call.arguments"])).toContain("src/slug.js");
    expect(String(tool.attributes["gen_ai.tool.call.arguments"])).toContain("[redacted:");

    // One span per gate the build's envelope went through.
    const gateRows = sb.query<GateResultRow>("SELECT * FROM gate_results WHERE adw_id = ?", adwId);
    const gateSpans = spans.filter((span) => span.name.startsWith("sssf.gate "));
    expect(gateRows.length).toBeGreaterThan(0);
    expect(gateSpans.map((span) => span.name).sort()).toEqual(
      gateRows.map((row) => `sssf.gate ${row.gate}`).sort(),
    );
    for (const span of gateSpans) {
      const row = gateRows.find((r) => `sssf.gate ${r.gate}` === span.name);
      expect(span.parentSpanId).toBe(build.spanId);
      expect(span.attributes).toMatchObject({
        "sssf.gate.name": row?.gate,
        "sssf.gate.ok": row?.ok === 1,
        "sssf.gate.violations": JSON.parse(row?.violations ?? "[]").length,
        "sssf.gate.checks": JSON.parse(row?.checks ?? "[]").length,
      });
    }

    // The suite under the code phase that ran it.
    const suite = one(spans, "sssf.suite test");
    expect(suite.parentSpanId).toBe(test.spanId);
    expect(suite.attributes).toMatchObject({
      "sssf.suite.name": "test",
      "sssf.suite.passed": true,
      "sssf.suite.exit_code": 0,
      "sssf.suite.baseline": false,
    });

    // Every span inside the run's time, naming the run; parents all received.
    const ids = new Set(spans.map((span) => span.spanId));
    for (const span of spans) {
      expect(span.attributes["sssf.adw_id"]).toBe(adwId);
      expect(span.startMs).toBeGreaterThanOrEqual(run.startMs);
      expect(span.endMs).toBeLessThanOrEqual(run.endMs);
      expect(span.endMs).toBeGreaterThanOrEqual(span.startMs);
      if (span !== run) expect(ids.has(span.parentSpanId)).toBe(true);
    }

    // The planted secrets reached no request.
    for (const request of receiver.requests) {
      expect(request.body).not.toContain(PLANTED_SECRET);
      expect(request.body).not.toContain(PLANTED_TOKEN);
    }

    // The stored run exported again: the same spans.
    const live = shapeOf(spans);
    receiver.clear();
    const exported = await sb.run(["db", "export", "--otlp", adwId], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(exported.code, exported.stdout + exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`exported ${spans.length} span(s) of 1 run(s) (${adwId})`);
    expect(shapeOf(receiver.spans)).toEqual(live);
  }, 120_000);

  it("sends observability.otlp's headers, and the env's endpoint wins over the config's", async () => {
    buildTestRepo(sb, {
      observability: {
        otlp: { endpoint: "http://127.0.0.1:9/unused", headers: { "x-team-token": PLANTED_SECRET } },
      },
    });
    const result = await sb.run(["run", "build-test", "add a slug helper"], {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(receiver.spans.map((span) => span.name)).toContain("sssf.run");
    expect(receiver.requests[0]?.headers["x-team-token"]).toBe(PLANTED_SECRET);
  }, 120_000);

  it("SIGTERM during a send: the run still ends, and its spans leave before sssf exits", async () => {
    sb.setup([{ name: "assistant", turns: [{ hang: true }] }]);
    const child = sb.start(["run", "prompt", "hang around", "--adw-id", "0000e1a1"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    const done = collect(child);
    const events = path.join(sb.sessionDir("0000e1a1"), "events.jsonl");
    await waitFor(
      () => existsSync(events) && readFileSync(events, "utf8").includes('"agent_start"'),
      30_000,
      "the send to start",
    );
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(143);
    const run = one(receiver.spans, "sssf.run");
    expect(run.statusCode).toBe(2);
    expect(run.attributes).toMatchObject({ "sssf.adw_id": "0000e1a1", "sssf.accepted": false });
    expect(String(run.attributes["sssf.reason"])).toContain("SIGTERM");
    const send = one(receiver.spans, "invoke_agent assistant");
    expect(send.statusCode).toBe(2);
    expect(one(receiver.spans, "sssf.phase prompt").parentSpanId).toBe(run.spanId);
  }, 120_000);

  it("an agent flooding tool calls: every call is a span, none dropped", async () => {
    const calls = 3000;
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: Array.from({ length: calls }, (_, i) => ({
              tool: "read",
              args: { path: `f${i}.md` },
              result: "x",
              duration_ms: 0,
            })),
            reply: envelopeJson({ summary: "read them all" }),
          },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "read everything"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const send = one(receiver.spans, "invoke_agent assistant");
    const tools = receiver.spans.filter((span) => span.name === "execute_tool read");
    expect(tools).toHaveLength(calls);
    expect(tools.every((span) => span.parentSpanId === send.spanId)).toBe(true);
    expect(new Set(tools.map((span) => span.attributes["gen_ai.tool.call.arguments"])).size).toBe(calls);
  }, 120_000);
});
