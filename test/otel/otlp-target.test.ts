import { describe, expect, it } from "vitest";
import { otlpTarget } from "../../src/otel/otlp-target.js";
import { redactSecrets } from "../../src/util/secrets/redact.js";

// Where spans go: the traces variable as it is, the base variable and the config's endpoint with
// /v1/traces added, OTEL_SDK_DISABLED off; nothing at all without one.

const config = {
  endpoint: "http://collector:4318",
  headers: { authorization: "Basic otlp-header-secret-42" },
};

describe("otlpTarget", () => {
  it("is null with no endpoint anywhere, and when OTEL_SDK_DISABLED=true", () => {
    expect(otlpTarget(null, {})).toBeNull();
    expect(otlpTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toBeNull();
    expect(
      otlpTarget(config, { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1" }),
    ).toBeNull();
  });

  it("takes the traces variable as it is, else the base variable or the config's endpoint with /v1/traces", () => {
    expect(
      otlpTarget(config, {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.test/custom",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
      }),
    ).toMatchObject({
      url: "https://traces.example.test/custom",
      source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    });
    expect(otlpTarget(config, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318/otlp/" })).toMatchObject({
      url: "http://base:4318/otlp/v1/traces",
      source: "OTEL_EXPORTER_OTLP_ENDPOINT",
    });
    expect(otlpTarget(config, {})).toEqual({
      url: "http://collector:4318/v1/traces",
      source: "observability.otlp.endpoint",
      headers: config.headers,
    });
    expect(otlpTarget({ endpoint: "http://c:4318/v1/traces", headers: {} }, {})?.url).toBe(
      "http://c:4318/v1/traces",
    );
  });

  it("refuses a URL that is not http(s), naming where it was set", () => {
    expect(() => otlpTarget(null, { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => otlpTarget({ endpoint: "grpc://c:4317", headers: {} }, {})).toThrow(
      /^observability\.otlp\.endpoint: expected an http:\/\/ or https:\/\/ URL/,
    );
  });

  it("registers the headers' values as secrets", () => {
    otlpTarget(config, {});
    expect(redactSecrets("sent Basic otlp-header-secret-42 along")).not.toContain("otlp-header-secret-42");
  });
});
