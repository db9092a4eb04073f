/**
 * Validation of fake-model scripts (files, `setScript`, `POST /__script`): one strict zod schema, so a
 * misspelt key is reported with its path instead of silently never matching.
 */
import { z } from "zod";
import type { ConfigProblem } from "../../errors/config-error.js";
import { configIssueMessage, zodIssueProblems } from "../../util/zod-issues.js";
import type { FakeScript, FakeStep } from "./types.js";

const count = z.number().int().nonnegative();

const matchSchema = z.strictObject({
  text: z.string().optional(),
  anywhere: z.string().min(1).optional(),
  afterToolResult: z.boolean().optional(),
  hasTools: z.boolean().optional(),
  api: z.enum(["openai-chat", "openai-responses", "anthropic", "gemini"]).optional(),
  model: z.string().optional(),
  nativeSchema: z.boolean().optional(),
});

const stepSchema = z
  .strictObject({
    match: matchSchema.optional(),
    reply: z.string().optional(),
    structured: z.record(z.string(), z.unknown()).optional(),
    tool: z.strictObject({ name: z.string().min(1), args: z.record(z.string(), z.unknown()) }).optional(),
    writeFile: z.strictObject({ path: z.string().min(1), content: z.string() }).optional(),
    error: z.strictObject({ status: z.number().int().min(400).max(599), message: z.string() }).optional(),
    httpError: z
      .strictObject({
        status: z.number().int().min(400).max(599),
        kind: z.enum(["rate_limit", "usage_limit", "overloaded", "server_error"]).optional(),
        headers: z.record(z.string(), z.string()).optional(),
        body: z.unknown().optional(),
        message: z.string().optional(),
      })
      .optional(),
    times: z.number().int().positive().optional(),
    hang: z.boolean().optional(),
    delayMs: count.optional(),
    usage: z
      .strictObject({
        input: count.optional(),
        output: count.optional(),
        cacheRead: count.optional(),
        cacheWrite: count.optional(),
      })
      .optional(),
    repeat: z.boolean().optional(),
  })
  .superRefine((step, context) => {
    if (step.tool && step.writeFile)
      context.addIssue({
        code: "custom",
        path: ["writeFile"],
        message: "give either tool or writeFile, not both",
      });
    if (step.structured && (step.tool || step.writeFile))
      context.addIssue({
        code: "custom",
        path: ["structured"],
        message: "structured goes with reply only, not with tool or writeFile",
      });
    const others = [step.reply, step.structured, step.tool, step.writeFile].some(
      (value) => value !== undefined,
    );
    if (step.error && (others || step.hang))
      context.addIssue({
        code: "custom",
        path: ["error"],
        message: "an error step cannot also reply or hang",
      });
    if (step.httpError && (others || step.hang || step.error))
      context.addIssue({
        code: "custom",
        path: ["httpError"],
        message: "an httpError step cannot also reply, hang or give error",
      });
    if (step.hang && others)
      context.addIssue({ code: "custom", path: ["hang"], message: "a hang step cannot also reply" });
    if (step.hang && step.delayMs !== undefined)
      context.addIssue({
        code: "custom",
        path: ["delayMs"],
        message: "a hang step never answers, so it cannot delay its answer",
      });
  });

const scriptSchema = z.strictObject({
  steps: z.array(stepSchema),
  fallback: z.enum(["echo", "error"]).optional(),
});

const stepListSchema = z.array(stepSchema);

/** The outcome of validating a script or a step list: the typed value, or every problem with its path. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; problems: ConfigProblem[] };

function parseWith<T>(schema: z.ZodType, value: unknown): ParseResult<T> {
  const result = schema.safeParse(value, { reportInput: true, error: configIssueMessage });
  if (result.success) return { ok: true, value: result.data as T };
  return { ok: false, problems: zodIssueProblems(result.error.issues, { wording: "config", schema }) };
}

/** Validates a whole script (`{steps, fallback?}`). Never throws. */
export function parseFakeScript(value: unknown): ParseResult<FakeScript> {
  return parseWith<FakeScript>(scriptSchema, value);
}

/** Validates a list of steps, or a `{steps}` object holding one (the `/__enqueue` body). Never throws. */
export function parseFakeSteps(value: unknown): ParseResult<FakeStep[]> {
  if (value && typeof value === "object" && !Array.isArray(value) && "steps" in value) {
    const script = parseFakeScript(value);
    return script.ok ? { ok: true, value: script.value.steps } : script;
  }
  return parseWith<FakeStep[]>(stepListSchema, value);
}

/** `steps[0].match.txt: unknown key; …` for an error message. Never throws. */
export function describeProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ");
}
