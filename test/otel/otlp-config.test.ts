import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors/config-error.js";
import { createTempRepo, type TempRepo, writePrompts } from "../config/temp-repo.js";

// `observability.otlp` in sssf.config.yaml: read into SssfConfig.otlp, bad values named by their path.

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
  writePrompts(repo, ["solo"]);
});
afterEach(() => repo.remove());

const withOtlp = (otlp: string) =>
  `agents:\n  - name: solo\n    coding_agent: exec\n    command: [node, solo.mjs]\nobservability:\n  otlp:\n${otlp}`;

function problems(): string[] {
  try {
    loadConfig({ cwd: repo.root, knownRuntimes: ["exec", "pi"] });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error("expected a ConfigError");
}

describe("observability.otlp", () => {
  it("is read with its headers; absent, the config has none", () => {
    repo.writeConfig(
      withOtlp("    endpoint: https://otel.example.test\n    headers:\n      authorization: Basic abc\n"),
    );
    expect(loadConfig({ cwd: repo.root, knownRuntimes: ["exec", "pi"] }).otlp).toEqual({
      endpoint: "https://otel.example.test",
      headers: { authorization: "Basic abc" },
    });
    repo.writeConfig("agents:\n  - name: solo\n    coding_agent: exec\n    command: [node, solo.mjs]\n");
    expect(loadConfig({ cwd: repo.root, knownRuntimes: ["exec", "pi"] }).otlp).toBeUndefined();
  });

  it("names a bad endpoint, a bad header name, a missing endpoint and an unknown key", () => {
    repo.writeConfig(withOtlp("    endpoint: ftp://collector:4318\n"));
    expect(problems()).toEqual([
      'observability.otlp.endpoint: expected an http:// or https:// URL such as http://localhost:4318, got "ftp://collector:4318"',
    ]);
    repo.writeConfig(withOtlp("    endpoint: http://c:4318\n    headers:\n      'bad header': x\n"));
    expect(problems().join("\n")).toContain("observability.otlp.headers");
    repo.writeConfig(withOtlp("    headers: {}\n"));
    expect(problems().join("\n")).toContain("observability.otlp.endpoint");
    repo.writeConfig(withOtlp("    endpoint: http://c:4318\n    protocol: grpc\n"));
    expect(problems().join("\n")).toContain("observability.otlp.protocol");
  });
});
