import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  answerFile,
  pendingRequests,
  readAnswer,
  requestFile,
  writeAnswerOnce,
  writeRequest,
} from "../../../src/approval/approval-files.js";
import { runQualitySuite } from "../../../src/code/quality.js";
import { saveDiff } from "../../../src/engine/run-changes.js";
import { spawnAgent } from "../../../src/runtimes/send-loop/spawn-agent.js";
import { placeholder, registerSecretEnv } from "../../../src/util/secrets/redact.js";
import { useTempDir } from "../../trace/trace-fixtures.js";
import { leaksIn, leaksInFiles, PATTERN_SAMPLES, PATTERN_TEXT } from "./secret-fixtures.js";

const REDACTED = placeholder("env:SUITE_SERVICE_TOKEN");

const VALUE = "writer-env-Secret-4242-value";
// As a run registers its agents' and suites' env.
registerSecretEnv({ SUITE_SERVICE_TOKEN: VALUE });
const SECRETS = [...PATTERN_SAMPLES, { kind: "env value", secret: VALUE }];
const HOSTILE = `${PATTERN_TEXT} ; value ${VALUE}`;

const tempDir = useTempDir("secret-writers");
const node = (script: string) => [process.execPath, "-e", script];

describe("raw_output.jsonl", () => {
  it("is redacted line by line, even when a secret arrives split across chunks, and the parser sees it whole", async () => {
    const rawOutputPath = path.join(tempDir(), "agent", "raw_output.jsonl");
    const line = JSON.stringify({ type: "result", text: HOSTILE });
    const half = Math.floor(line.indexOf(VALUE) + VALUE.length / 2);
    // The value is cut in two writes a pause apart: two reads of the pipe, one line.
    const script = [
      `const line = ${JSON.stringify(line)};`,
      `process.stdout.write(line.slice(0, ${half}));`,
      `setTimeout(() => process.stdout.write(line.slice(${half}) + "\\n" + ${JSON.stringify(`plain ${VALUE}`)} + "\\n"), 200);`,
    ].join("\n");
    const seen: string[] = [];
    const outcome = await spawnAgent({
      command: node(script),
      cwd: tempDir(),
      stdin: "",
      rawOutputPath,
      timeouts: { idleMs: 30_000, wallMs: 60_000 },
      onLine: (received) => seen.push(received),
      observer: {},
    });
    expect(outcome.exitCode).toBe(0);
    expect(seen).toEqual([line, `plain ${VALUE}`]);
    const raw = readFileSync(rawOutputPath, "utf8");
    expect(leaksIn("raw_output.jsonl", raw, SECRETS)).toEqual([]);
    const lines = raw.split("\n").slice(0, -1);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ type: "result" });
    expect(lines[1]).toBe(`plain ${REDACTED}`);
  });
});

describe("a failing suite's output tail", () => {
  const suite = (script: string) => ({
    name: "test",
    command: node(script),
    timeoutMs: 30_000,
    env: { SUITE_SERVICE_TOKEN: VALUE },
  });

  it("is redacted: the suite's own env value and every pattern", async () => {
    const result = await runQualitySuite(
      suite(
        `console.log(${JSON.stringify(HOSTILE)}); console.error("token from env: " + process.env.SUITE_SERVICE_TOKEN); process.exit(1)`,
      ),
      tempDir(),
    );
    expect(result.passed).toBe(false);
    expect(leaksIn("output tail", result.outputTail, SECRETS)).toEqual([]);
    expect(result.outputTail).toContain(`token from env: ${REDACTED}`);
  });

  it("drops the end of a secret whose start fell before the kept tail", async () => {
    // 32 KB are kept; the tail starts ten characters into the value, in the middle of the only line.
    const before = "a".repeat(200);
    const after = ` ${"word ".repeat(6600)}`.slice(0, 32_768 - (VALUE.length - 10) - 1);
    const result = await runQualitySuite(
      suite(`process.stdout.write(${JSON.stringify(`${before}${VALUE}${after}`)} + "\\n"); process.exit(1)`),
      tempDir(),
    );
    expect(result.passed).toBe(false);
    expect(result.outputTail).not.toContain(VALUE.slice(10));
    expect(result.outputTail.trimStart().startsWith("word word")).toBe(true);
  });
});

describe("diffs and approval files", () => {
  it("saveDiff stores the diff redacted", () => {
    const diff = `diff --git a/.env b/.env\n+SERVICE_TOKEN=${VALUE}\n+# ${PATTERN_TEXT}\n`;
    const file = saveDiff(tempDir(), "p03-changes", diff);
    expect(leaksIn(file, readFileSync(file), SECRETS)).toEqual([]);
    expect(readFileSync(file, "utf8")).toContain(`diff --git a/.env b/.env\n+SERVICE_TOKEN=${REDACTED}`);
  });

  it("request and answer files are written redacted and still read back", () => {
    const dir = path.join(tempDir(), "approvals");
    writeRequest(requestFile(dir, "a1b2c3d4-p02"), {
      adw_id: "a1b2c3d4",
      phase_id: "a1b2c3d4-p02",
      phase: "approve",
      phase_number: 2,
      question: `Deploy with ${VALUE}?`,
      details: { plan: HOSTILE, nested: { api_key: "plainkey123" } },
      asked_at: new Date().toISOString(),
      pid: process.pid,
      host: "host",
    });
    expect(
      writeAnswerOnce(answerFile(dir, "a1b2c3d4-p02"), {
        approved: false,
        reason: `no: ${HOSTILE}`,
        by: "engineer",
        at: new Date().toISOString(),
      }),
    ).toBe(true);
    const files = [requestFile(dir, "a1b2c3d4-p02"), answerFile(dir, "a1b2c3d4-p02")];
    expect(leaksInFiles(files, SECRETS)).toEqual([]);
    expect(readFileSync(files[0] ?? "", "utf8")).not.toContain("plainkey123");
    const [request] = pendingRequests(dir);
    expect(request?.question).toBe(`Deploy with ${REDACTED}?`);
    expect(readAnswer(files[1] ?? "").approved).toBe(false);
  });
});
