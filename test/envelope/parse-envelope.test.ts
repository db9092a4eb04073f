import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineOutputType } from "../../src/envelope/output-type.js";
import { locateEnvelope, parseEnvelope } from "../../src/envelope/parse-envelope.js";
import { ChangesOutput, GenericOutput, ReviewOutput, VerifyOutput } from "../../src/envelope/schemas.js";

function problemsOf(result: ReturnType<typeof parseEnvelope>) {
  if (result.ok) throw new Error(`expected a failed parse, got ${JSON.stringify(result.envelope)}`);
  return result.problems;
}

describe("parseEnvelope", () => {
  it("accepts a bare envelope and applies defaults", () => {
    const result = parseEnvelope('{"status": "success", "summary": "done"}', GenericOutput);
    expect(result).toEqual({
      ok: true,
      envelope: { status: "success", summary: "done", artifacts: [], notes_for_next_agent: "" },
      json: { status: "success", summary: "done" },
    });
  });

  it("accepts a fenced envelope inside prose and strips unknown keys", () => {
    const text = 'Work is done.\n```json\n{"status": "fail", "mood": "tired"}\n```\nBye.';
    const result = parseEnvelope(text, GenericOutput);
    expect(result.ok && result.envelope).toEqual({
      status: "fail",
      summary: "",
      artifacts: [],
      notes_for_next_agent: "",
    });
    expect(result.json).toEqual({ status: "fail", mood: "tired" });
  });

  it("lets the last valid object win when the reports agree", () => {
    const text =
      'Plan: {"status": "success", "summary": "draft"} final: {"status": "success", "summary": "final"}';
    const result = parseEnvelope(text, GenericOutput);
    expect(result.ok && result.envelope.summary).toBe("final");
  });

  it("never resolves reports that disagree on status: it asks again, whatever their order", () => {
    for (const text of [
      'Plan: {"status": "fail", "summary": "draft"} final: {"status": "success", "summary": "final"}',
      '{"status": "success", "summary": "template"}\n{"status": "fail", "summary": "tests fail"}',
      '{"status": "fail", "summary": "x"}\n```json\n{"status": "success", "summary": "template"}\n```',
      '{status: fail} and then {"status": "success", "summary": "y"}',
      '{"status": "FAIL", "summary": "x"} {"status": " success ", "summary": "y"}',
    ]) {
      const result = parseEnvelope(text, GenericOutput);
      expect(result.ok, text).toBe(false);
      expect(problemsOf(result).at(-1), text).toMatchObject({
        path: "status",
        message: expect.stringMatching(/^is ambiguous: 2 reports give it as/),
      });
    }
  });

  it("never takes a report that gives one field twice, in any case or escape form", () => {
    for (const text of [
      '{"status": "fail", "summary": "x", "status": "success"}',
      '{"status": "fail", "summary": "x", "st\\u0061tus": "success"}',
      '{"Status": "fail", "summary": "x", "status": "success"}',
      '{"STATUS": "fail", "st\\u0041tus": "fail", "status": "success"}',
    ]) {
      const result = parseEnvelope(text, GenericOutput);
      expect(result.ok, text).toBe(false);
      expect(
        problemsOf(result)
          .map((p) => p.message)
          .join("\n"),
        text,
      ).toMatch(/twice|more than once/);
    }
  });

  it("hears a report's status however many objects follow it", () => {
    const others = Array.from({ length: 1500 }, (_, i) => `{"port": ${i}}`).join("\n");
    const text = `{"status": "fail", "summary": "broke"}\n${others}\n{"status": "success", "summary": "template"}`;
    const result = parseEnvelope(text, GenericOutput);
    expect(result.ok).toBe(false);
    expect(problemsOf(result).at(-1)?.message).toMatch(
      /^is ambiguous: .*"fail"|^is ambiguous: .*"success" and "fail"/,
    );
  });

  it("finds the final report however many keys it has", () => {
    const keys = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const final = JSON.stringify({ ...keys, status: "fail", summary: "broke" });
    const result = parseEnvelope(
      `Template: {"status": "success", "summary": "t"}\nReal: ${final}`,
      GenericOutput,
    );
    expect(result.ok).toBe(false);
    const alone = parseEnvelope(`Real: ${final}`, GenericOutput);
    expect(alone.ok && alone.envelope.status).toBe("fail");
  });

  it("does not let a later invalid object beat an earlier valid one", () => {
    const text = 'Report: {"status": "success", "summary": "real"}\nExample of a config: {"port": 8080}';
    const result = parseEnvelope(text, GenericOutput);
    expect(result.ok && result.envelope.summary).toBe("real");
    expect(result.json).toEqual({ status: "success", summary: "real" });
  });

  it("accepts a repaired envelope whose keys are all double-quoted", () => {
    const result = parseEnvelope(`{"status": 'success', "artifacts": ['a.md',],}`, GenericOutput);
    expect(result.ok && result.envelope.artifacts).toEqual(["a.md"]);
  });

  it("never repairs a Python- or JS-style dict into an envelope", () => {
    for (const text of [
      "{'status': 'success', 'artifacts': ['a.md',],}",
      "Result: {'status': 'success', 'summary': 'done', 'ok': True, 'x': None}",
      "{status: 'success', artifacts: ['a.md']}",
    ]) {
      const result = parseEnvelope(text, GenericOutput);
      expect(result.ok, text).toBe(false);
      expect(problemsOf(result)[0]?.message, text).toMatch(/is not JSON: its keys are/);
    }
  });

  it("reports a single problem with an empty path when there is no JSON at all", () => {
    const result = parseEnvelope("I am done, everything works.", GenericOutput);
    expect(result).toEqual({
      ok: false,
      problems: [{ path: "", message: "no JSON object was found in the reply" }],
      json: undefined,
    });
  });

  it("reports a missing status with the allowed values", () => {
    const result = parseEnvelope('{"summary": "forgot the status"}', GenericOutput);
    expect(problemsOf(result)).toEqual([
      { path: "status", message: 'required field is missing (expected "success" | "fail")' },
    ]);
    expect(result.json).toEqual({ summary: "forgot the status" });
  });

  it("reports the problems of the last candidate when none validates", () => {
    const text = '{"summary": "first"} and then {"status": "done"}';
    const result = parseEnvelope(text, GenericOutput);
    expect(problemsOf(result)).toEqual([
      { path: "status", message: 'invalid value "done": expected one of "success" | "fail"' },
    ]);
    expect(result.json).toEqual({ status: "done" });
  });

  it("names a wrong nested type by its exact path", () => {
    const envelope = {
      status: "success",
      approved: true,
      findings: [{ requirement: "health endpoint", met: "yes", evidence: "src/server.ts:12" }],
    };
    expect(problemsOf(parseEnvelope(JSON.stringify(envelope), ReviewOutput))).toEqual([
      { path: "findings[0].met", message: "expected boolean, got string" },
    ]);
  });

  it("names missing nested fields and wrong top-level types", () => {
    const envelope = {
      status: "success",
      approved: "no",
      findings: [{ requirement: "r", met: true }],
      blocking: "x",
    };
    expect(problemsOf(parseEnvelope(JSON.stringify(envelope), ReviewOutput))).toEqual([
      { path: "approved", message: "expected boolean, got string" },
      { path: "findings[0].evidence", message: "required field is missing (expected string)" },
      { path: "blocking", message: "expected array, got string" },
    ]);
  });

  it("lists the allowed values of a nested enum", () => {
    const envelope = { status: "success", files: [{ path: "a.ts", change: "moved" }] };
    expect(problemsOf(parseEnvelope(JSON.stringify(envelope), ChangesOutput))).toEqual([
      {
        path: "files[0].change",
        message: 'invalid value "moved": expected one of "added" | "modified" | "deleted" | "renamed"',
      },
    ]);
  });

  it("words number constraints and null", () => {
    const envelope = { status: "success", suite: null, passed: true, exit_code: 1.5, duration_ms: -1 };
    expect(problemsOf(parseEnvelope(JSON.stringify(envelope), VerifyOutput))).toEqual([
      { path: "suite", message: "expected string, got null" },
      { path: "exit_code", message: "expected integer, got 1.5" },
      { path: "duration_ms", message: "must be >= 0, got -1" },
    ]);
  });

  it("describes union, strict-object, length and odd-key problems of custom types", () => {
    const Custom = defineOutputType(
      "CustomOutput",
      z.object({
        status: z.enum(["success", "fail"]),
        target: z.union([z.string(), z.object({ line: z.number() })]),
        tags: z.array(z.string()).min(1),
        meta: z.object({ "odd key": z.string() }).strict(),
      }),
      { status: "success", target: "a", tags: ["t"], meta: { "odd key": "v" } },
    );
    const envelope = {
      status: "success",
      target: { line: "12" },
      tags: [],
      meta: { "odd key": 1, extra: 2 },
    };
    expect(problemsOf(parseEnvelope(JSON.stringify(envelope), Custom))).toEqual([
      { path: "target.line", message: "expected number, got string" },
      { path: "tags", message: "must have at least 1 item, got 0 items" },
      { path: 'meta["odd key"]', message: "expected string, got number" },
      { path: "meta.extra", message: "unexpected field; remove it" },
    ]);
    expect(
      problemsOf(parseEnvelope('{"status": "fail", "tags": ["t"], "meta": {"odd key": "v"}}', Custom)),
    ).toEqual([{ path: "target", message: "required field is missing (expected string | object)" }]);
  });

  it("finds a valid envelope at the end of a 5 MB message", () => {
    const line = "building module {name} with 'quotes' and \"more\" text\n";
    const text = `${line.repeat(Math.ceil((5 * 1024 * 1024) / line.length))}{"status": "success", "summary": "big"}`;
    const result = parseEnvelope(text, GenericOutput);
    expect(result.ok && result.envelope.summary).toBe("big");
  });

  it("reports no JSON for 5 MB of opening braces", () => {
    expect(problemsOf(parseEnvelope("{".repeat(5 * 1024 * 1024), GenericOutput))).toEqual([
      { path: "", message: "no JSON object was found in the reply" },
    ]);
  });

  it("rejects a cut-off report instead of accepting the object nested in it", () => {
    const text = '{"status": "fail", "summary": "x", "details": {"status": "success", "n": 1}, "more": [1,';
    const result = parseEnvelope(text, GenericOutput);
    expect(problemsOf(result)[0]?.message).toMatch(/is cut off/);
    expect(result.json).toBeUndefined();
  });

  it("never turns a JS/YAML-style object into an envelope", () => {
    expect(problemsOf(parseEnvelope("All set: {status: success}", GenericOutput))[0]?.message).toMatch(
      /is not JSON: its keys are bare words/,
    );
  });

  it("reports the agent's invalid final report instead of an earlier quoted example", () => {
    const text =
      'Example: {"status": "success", "summary": "ex"}\nFinal: {"status": "fail", "artifacts": "x"}';
    const result = parseEnvelope(text, GenericOutput);
    expect(problemsOf(result)[0]).toEqual({ path: "artifacts", message: "expected array, got string" });
    expect(problemsOf(result)[1]?.message).toMatch(
      /^is ambiguous: 2 reports give it as "success" and "fail"/,
    );
    expect(result.json).toEqual({ status: "fail", artifacts: "x" });
  });

  it("takes a final report without status as the final report, not the example before it", () => {
    const text = 'Example: {"status": "success"}\nMine: {"summary": "forgot it"}';
    expect(problemsOf(parseEnvelope(text, GenericOutput))).toEqual([
      { path: "status", message: 'required field is missing (expected "success" | "fail")' },
    ]);
  });

  it("lets a malformed final report decide, not the object inside it", () => {
    const text = '{"status": "fail", oops, "details": {"status": "success"}}';
    expect(problemsOf(parseEnvelope(text, GenericOutput))[0]?.message).toMatch(
      /is not valid JSON: expected ":"/,
    );
  });

  it("finds the envelope between an unmatched { and an unmatched }, and says where it is", () => {
    const text = 'Use { to open. {"status": "success", "summary": "ok"} and } to close.';
    const found = locateEnvelope(text, GenericOutput);
    expect(found.ok && found.envelope.summary).toBe("ok");
    expect(text.slice(found.start, found.end)).toBe('{"status": "success", "summary": "ok"}');
    expect(locateEnvelope("no object", GenericOutput)).toMatchObject({ ok: false, start: -1, end: -1 });
  });

  it("names a raw NUL byte in the envelope", () => {
    expect(problemsOf(parseEnvelope('{"status": "success", "summary": "a\u0000"}', GenericOutput))).toEqual([
      {
        path: "",
        message:
          'the JSON object starting `{"status": "success", "summary":…` holds a raw NUL byte (U+0000) right after `"success", "summary": "a`; remove it (inside a string, write it as \\u0000)',
      },
    ]);
  });
});
