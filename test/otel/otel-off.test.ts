import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { OtlpReceiver } from "./otlp-receiver.js";

// Off by default and loading nothing then; an export that fails is one warning line and the run goes on;
// a bad endpoint is a config error naming where it was set.

const MODULE_LOG_HOOK = pathToFileURL(path.join(import.meta.dirname, "module-log.mjs")).href;
const answer = { reply: envelopeJson({ summary: "answered" }) };

let sb: Sandbox;
let receiver: OtlpReceiver;
beforeEach(async () => {
  sb = new Sandbox();
  receiver = await OtlpReceiver.start();
  sb.setup([{ name: "assistant", turns: [answer, answer, answer] }]);
});
afterEach(async () => {
  await receiver.close();
  sb.cleanup();
});

/** The @opentelemetry modules a run of sssf resolved, with `env` added to its environment. */
async function modulesLoadedBy(env: Record<string, string>): Promise<string[]> {
  const log = path.join(sb.agentsDir, `modules-${Object.keys(env).length}.log`);
  const result = await sb.run(["run", "prompt", "say hello"], {
    NODE_OPTIONS: `--import=${MODULE_LOG_HOOK}`,
    SSSF_TEST_MODULE_LOG: log,
    ...env,
  });
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

describe("the OpenTelemetry export when off, failing or misconfigured", () => {
  it("loads no @opentelemetry module without an endpoint, and loads the SDK with one", async () => {
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith("OTEL_")) delete process.env[name];
    try {
      expect(await modulesLoadedBy({})).toEqual([]);
      const loaded = await modulesLoadedBy({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      expect(loaded.some((line) => line.includes("/@opentelemetry/sdk-trace/"))).toBe(true);
      expect(loaded.some((line) => line.includes("/@opentelemetry/exporter-trace-otlp-http/"))).toBe(true);
      expect(receiver.spans.map((span) => span.name)).toContain("sssf.run");
    } finally {
      Object.assign(process.env, env);
    }
  }, 120_000);

  it("a receiver answering 500: one warning line, the run still exits 0 and is recorded", async () => {
    receiver.mode = 500;
    const result = await sb.run(["run", "prompt", "say hello"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    expect(warnings, result.stderr).toHaveLength(1);
    expect(warnings[0]).toContain(`sssf: warning: OpenTelemetry export to ${receiver.endpoint}/v1/traces`);
    expect(warnings[0]).toContain("the run goes on without it");
    expect(receiver.requests.length).toBeGreaterThan(0);
    const adwId = adwIdFrom(result.stdout);
    expect(sb.query<{ status: string }>("SELECT status FROM sessions WHERE adw_id = ?", adwId)).toEqual([
      { status: "success" },
    ]);
  }, 120_000);

  it("a receiver that is down: one warning line, the run still exits 0", async () => {
    const endpoint = receiver.endpoint;
    await receiver.close();
    const result = await sb.run(["run", "prompt", "say hello"], { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const warnings = result.stderr.split("\n").filter((line) => line.includes("OpenTelemetry"));
    expect(warnings, result.stderr).toHaveLength(1);
    expect(warnings[0]).toContain(
      `OpenTelemetry export to ${endpoint}/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT) failed`,
    );
    receiver = await OtlpReceiver.start();
  }, 120_000);

  it("a bad endpoint is a config error naming the variable or the field, before any session exists", async () => {
    const bad = await sb.run(["run", "prompt", "say hello"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318",
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:// or https:// URL such as http://localhost:4318, got "localhost:4318"',
    );
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const traces = await sb.run(["run", "prompt", "say hello"], {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "nope",
    });
    expect(traces.code).toBe(2);
    expect(traces.stderr).toContain(
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: expected an http:// or https:// URL",
    );
    expect(existsSync(path.join(sb.dir, "adws/adw_data/sessions"))).toBe(false);

    const config = readFileSync(path.join(sb.dir, "adws/adw_sssf_config/sssf.config.yaml"), "utf8");
    sb.writeConfig({ ...JSON.parse(config), observability: { otlp: { endpoint: "ftp://collector:4318" } } });
    const field = await sb.run(["run", "prompt", "say hello"]);
    expect(field.code).toBe(2);
    expect(field.stderr).toContain("observability.otlp.endpoint: expected an http:// or https:// URL");
  }, 120_000);

  it("sssf db export: --otlp is required, an endpoint too, and an unknown run is named", async () => {
    const noFormat = await sb.run(["db", "export", "abcd1234"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(noFormat.code).toBe(2);
    expect(noFormat.stderr).toContain("--otlp");
    const noEndpoint = await sb.run(["db", "export", "--otlp", "abcd1234"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    });
    expect(noEndpoint.code).toBe(2);
    expect(noEndpoint.stderr).toContain("no endpoint; set OTEL_EXPORTER_OTLP_ENDPOINT");
    const ran = await sb.run(["run", "prompt", "say hello"]);
    expect(ran.code).toBe(0);
    const unknown = await sb.run(["db", "export", "--otlp", "abcd1234"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no run abcd1234 in");
    expect(receiver.requests).toEqual([]);
  }, 120_000);
});
