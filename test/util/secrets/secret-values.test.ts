import { describe, expect, it, vi } from "vitest";
import {
  isSecretVariableName,
  KNOWN_SECRET_VARIABLES,
  MIN_SECRET_VALUE_LENGTH,
  placeholder,
  redactSecrets,
  registerSecretEnv,
  registerSecretValues,
} from "../../../src/util/secrets/redact.js";
import { redactJsonText, redactJsonValue } from "../../../src/util/secrets/redact-json.js";

const REDACTED = placeholder("secret-value");

describe("isSecretVariableName", () => {
  it.each([
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "MY_SERVICE_ACCESS_KEY",
    "STRIPE_SECRET",
    "DB_PASSWORD",
    "DB_PASSWD",
    "DB_PASS",
    "GPG_PASSPHRASE",
    "TOKEN",
    "api_key",
    "npm_config__authToken",
    "clientSecret",
  ])("%s holds a secret", (name) => {
    expect(isSecretVariableName(name)).toBe(true);
  });

  it.each([
    "PATH",
    "HOME",
    "AWS_ACCESS_KEY_ID",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "PASSENGER_APP_ENV",
    "KEYBOARD_LAYOUT",
    "MONKEY",
    "TOKENIZERS_PARALLELISM",
    "GITHUB_TOKEN_FILE",
  ])("%s does not", (name) => {
    expect(isSecretVariableName(name)).toBe(false);
  });

  it("counts every known provider variable", () => {
    for (const name of KNOWN_SECRET_VARIABLES) expect(isSecretVariableName(name), name).toBe(true);
  });
});

describe("registered secret values", () => {
  const value = "Zq7-unusual-Value+9/x";

  it("are redacted wherever they appear: prose, inside a word, assignments, JSON, twice", () => {
    registerSecretValues([value]);
    const cases = [
      `the value is ${value}.`,
      `prefix${value}suffix`,
      `MY_SETTING=${value}`,
      `curl -H "X-Thing: ${value}" https://example.test`,
      `${value} and again ${value}`,
    ];
    for (const text of cases) {
      const redacted = redactSecrets(text);
      expect(redacted, text).not.toContain(value);
      expect(redacted, text).toContain(REDACTED);
      expect(redactSecrets(redacted)).toBe(redacted);
    }
    const json = JSON.stringify({ note: `see ${value}`, list: [value], n: 3 });
    const redactedJson = redactJsonText(json);
    expect(JSON.parse(redactedJson)).toEqual({ note: `see ${REDACTED}`, list: [REDACTED], n: 3 });
  });

  it("are matched as they read inside a JSON string, quotes and backslashes escaped", () => {
    const quoted = 'pa"ss\\word-with-quote';
    registerSecretValues([quoted]);
    const json = JSON.stringify({ out: `echo ${quoted}` });
    expect(json).not.toContain(quoted);
    const redacted = redactSecrets(json);
    expect(redacted).not.toContain(JSON.stringify(quoted).slice(1, -1));
    expect(JSON.parse(redactJsonText(json))).toEqual({ out: `echo ${REDACTED}` });
  });

  it("are registered trimmed too, and a value containing another is replaced whole", () => {
    registerSecretValues(["  trimmed-secret-42\n", "abcdefgh-inner", "xx-abcdefgh-inner-xx"]);
    expect(redactSecrets("v=trimmed-secret-42;")).toBe(`v=${REDACTED};`);
    expect(redactSecrets("a xx-abcdefgh-inner-xx b")).toBe(`a ${REDACTED} b`);
  });

  it(`ignore values shorter than ${MIN_SECRET_VALUE_LENGTH} characters and parts of the marker`, () => {
    registerSecretValues(["1", "short", "1234567", "[redacted:", "redacted"]);
    const text = "1 short 1234567 [redacted: redacted";
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets(REDACTED)).toBe(REDACTED);
  });

  it("registerSecretEnv takes the values of secret-named variables only", () => {
    registerSecretEnv({
      PROJECT_API_KEY: "env-api-key-value-1",
      DEPLOY_TOKEN: "env-deploy-token-value",
      HOME_DIR: "/home/not-a-secret",
      EMPTY_TOKEN: undefined,
    });
    expect(redactSecrets("k env-api-key-value-1 t env-deploy-token-value")).toBe(
      `k ${placeholder("env:PROJECT_API_KEY")} t ${placeholder("env:DEPLOY_TOKEN")}`,
    );
    expect(redactSecrets("cd /home/not-a-secret")).toBe("cd /home/not-a-secret");
  });

  it("keep redactJsonValue's object itself when there is nothing to redact", () => {
    registerSecretValues(["json-value-secret"]);
    const clean = { status: "success", list: [1, 2] };
    expect(redactJsonValue(clean)).toBe(clean);
    const dirty = { status: "success", summary: "uses json-value-secret", nested: { api_key: "x" } };
    expect(redactJsonValue(dirty)).toEqual({
      status: "success",
      summary: `uses ${REDACTED}`,
      nested: { api_key: placeholder("named-value") },
    });
    expect(dirty.summary).toBe("uses json-value-secret");
  });
});

describe("sssf's own environment", () => {
  it("is registered when the module loads", async () => {
    const secret = "loaded-from-process-env-77";
    process.env.SSSF_TEST_LOAD_API_KEY = secret;
    process.env.SSSF_TEST_LOAD_NAME = "not-secret-by-name-77";
    try {
      vi.resetModules();
      const fresh = await import("../../../src/util/secrets/redact.js");
      expect(fresh.redactSecrets(`x ${secret} y`)).toBe(`x ${placeholder("env:SSSF_TEST_LOAD_API_KEY")} y`);
      expect(fresh.redactSecrets("not-secret-by-name-77")).toBe("not-secret-by-name-77");
    } finally {
      delete process.env.SSSF_TEST_LOAD_API_KEY;
      delete process.env.SSSF_TEST_LOAD_NAME;
    }
  });
});
