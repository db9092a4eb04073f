/**
 * The codex side of native structured output: the call's schema rewritten for strict mode
 * (`strict-schema.ts`) and written to `<sessionDir>/<session>.output-schema.json` for
 * `--output-schema` on every send (a resumed thread does not keep it), the reply's forced `null`s
 * removed again, and the trace line saying what the native layer did.
 */

import { writeFileSync } from "node:fs";
import path from "node:path";
import { codexStrictSchema, dropStrictNulls } from "./strict-schema.js";

/** Whether and how one send passes a native schema. */
export type CodexOutputSchema =
  | { kind: "none" }
  | { kind: "skipped"; reason: string }
  | { kind: "passed"; file: string; original: Record<string, unknown>; nullable: number };

const fileSafe = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, "_");

/**
 * Writes the strict form of `schema` for session `sessionId`, or says why it is not passed. Throws
 * only when the file cannot be written.
 */
export function writeCodexOutputSchema(
  sessionDir: string,
  sessionId: string,
  schema: Record<string, unknown> | undefined,
): CodexOutputSchema {
  if (schema === undefined) return { kind: "none" };
  const strict = codexStrictSchema(schema);
  if (!strict.ok) return { kind: "skipped", reason: `strict mode cannot express it: ${strict.reason}` };
  const file = path.join(sessionDir, `${fileSafe(sessionId)}.output-schema.json`);
  writeFileSync(file, `${JSON.stringify(strict.schema, null, 2)}\n`);
  return { kind: "passed", file, original: schema, nullable: strict.nullable };
}

/** The reply as the door should read it, and what the native layer did, for the trace. */
export interface CodexNativeReply {
  text: string;
  message: string;
  details: Record<string, unknown>;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The reply text after the native layer (the forced `null`s of optional fields removed when the whole
 * reply is one JSON object), and the send's trace line. `replied` is false when the send failed.
 * Never throws.
 */
export function codexNativeReply(plan: CodexOutputSchema, text: string, replied: boolean): CodexNativeReply {
  if (plan.kind !== "passed") {
    const why =
      plan.kind === "none" ? "the call has no JSON schema" : `the schema is not passed: ${plan.reason}`;
    return {
      text,
      message: `codex: no native output schema for this send (${why}); the door alone checks the reply`,
      details: { layer: "native", native_schema: false },
    };
  }
  const passed = `codex: native output schema passed (--output-schema, sent as a strict json_schema text.format${
    plan.nullable > 0
      ? `; ${plan.nullable} optional field${plan.nullable === 1 ? "" : "s"} sent as required and nullable`
      : ""
  })`;
  const details = {
    layer: "native",
    native_schema: true,
    flag: "--output-schema",
    strict: true,
    nullable_fields: plan.nullable,
  };
  if (!replied)
    return {
      text,
      message: `${passed}; the send failed before a reply`,
      details: { ...details, reply_json: false },
    };
  const json = parseObject(text.trim());
  if (json === null) {
    return {
      text,
      message: `${passed}; the reply is not one JSON object (codex does not check it; the endpoint did not hold it to the schema), so the door judges the text`,
      details: { ...details, reply_json: false },
    };
  }
  const cleaned = dropStrictNulls(json, plan.original);
  const removed =
    cleaned.dropped === 0
      ? ""
      : `; ${cleaned.dropped} null${cleaned.dropped === 1 ? "" : "s"} of optional fields removed`;
  return {
    text: cleaned.dropped === 0 ? text : JSON.stringify(cleaned.value),
    message: `${passed}; the reply is one JSON object${removed}, handed to the door`,
    details: { ...details, reply_json: true, nulls_removed: cleaned.dropped },
  };
}
