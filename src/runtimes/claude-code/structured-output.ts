/**
 * claude's native structured output (`--json-schema`), as measured with 2.1.332 against the fake
 * model: claude offers the model a `StructuredOutput` tool whose `input_schema` is the schema, checks
 * each call against it (ajv) and answers an invalid one with an `is_error` tool result
 * (`Output does not match required schema: …`), so the model retries inside claude's session; after
 * 5 invalid calls it ends with `subtype: "error_max_structured_output_retries"` (exit 1). A model that
 * answers in text is reminded once (a synthetic `[structured-output-enforce]` user message); if it
 * still answers in text, the result is that text. A valid call ends the turn and the result line
 * carries `structured_output` (and `result` is its JSON). See docs/runtimes/claude_code.md.
 */

/** The tool claude adds for `--json-schema`. */
export const CLAUDE_STRUCTURED_TOOL = "StructuredOutput";

/** The text of claude's synthetic reminder when the model answered without calling the tool. */
export const CLAUDE_STRUCTURED_REMINDER = "[structured-output-enforce]";

/** The subtype of claude's result line when the model never made a valid StructuredOutput call. */
export const CLAUDE_STRUCTURED_EXHAUSTED = "error_max_structured_output_retries";

/**
 * Linux refuses a single argv string over 128 KiB (MAX_ARG_STRLEN); claude reads the schema only
 * inline, so a larger one is not passed.
 */
export const CLAUDE_SCHEMA_ARG_LIMIT = 100_000;

/** The `--json-schema` value for `schema`, or why it is not passed. */
export type ClaudeSchemaArg = { ok: true; json: string } | { ok: false; reason: string };

/**
 * The schema as claude accepts it: without the root `$schema` (claude's ajv knows only its default
 * draft; zod's `https://json-schema.org/draft/2020-12/schema` makes claude exit with "no schema with
 * key or ref"), and small enough for one argv string. Never throws.
 */
export function claudeSchemaArg(schema: Record<string, unknown>): ClaudeSchemaArg {
  const { $schema: _dialect, ...rest } = schema;
  const json = JSON.stringify(rest);
  if (Buffer.byteLength(json) > CLAUDE_SCHEMA_ARG_LIMIT) {
    return {
      ok: false,
      reason: `its JSON is ${Buffer.byteLength(json)} bytes, over the ${CLAUDE_SCHEMA_ARG_LIMIT} bytes one argv string may safely hold (claude takes --json-schema only inline)`,
    };
  }
  return { ok: true, json };
}

/** What claude's native layer did during one send. */
export interface ClaudeStructuredOutcome {
  /** StructuredOutput calls the model made. */
  calls: number;
  /** Calls claude rejected against the schema (each one a retry inside claude's session). */
  rejected: number;
  /** Times claude reminded the model to call StructuredOutput. */
  reminders: number;
  /** The result line's `structured_output`, when claude accepted a call. */
  structured: Record<string, unknown> | null;
  /** claude ended with `error_max_structured_output_retries`. */
  gaveUp: boolean;
  /** The input of the last StructuredOutput call, for the door to judge when claude gave up. */
  lastInput: unknown;
}

/** The outcome of a send with no native schema, or before anything happened. */
export function noStructuredOutcome(): ClaudeStructuredOutcome {
  return { calls: 0, rejected: 0, reminders: 0, structured: null, gaveUp: false, lastInput: undefined };
}

type Log = (message: string, details?: Record<string, unknown>) => void;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (isObject(block) && typeof block.text === "string" ? block.text : ""))
    .join("\n");
}

/** Follows StructuredOutput calls, their results and claude's reminders through one send's stream. */
export class ClaudeStructuredWatch {
  private readonly ids = new Set<string>();
  private readonly outcome = noStructuredOutcome();

  constructor(private readonly log: Log) {}

  /** An assistant `tool_use` block: true when it is a StructuredOutput call (not a tool call for sssf). */
  toolUse(id: string, name: string, input: unknown): boolean {
    if (name !== CLAUDE_STRUCTURED_TOOL) return false;
    this.ids.add(id);
    this.outcome.calls += 1;
    this.outcome.lastInput = input;
    return true;
  }

  /** A user `tool_result` block: true when it answers a StructuredOutput call. */
  toolResult(id: string, content: unknown, isError: boolean): boolean {
    if (!this.ids.has(id)) return false;
    if (isError) {
      this.outcome.rejected += 1;
      const why = toolResultText(content).split("\n\n<system-reminder>")[0] ?? "";
      this.log(
        `claude rejected StructuredOutput call ${this.outcome.calls}: ${why}; the model retries in claude's session`,
        {
          layer: "native",
          tool_use_id: id,
        },
      );
    }
    return true;
  }

  /** A synthetic user text from claude: true (and counted) when it is the reminder to call StructuredOutput. */
  syntheticText(text: string): boolean {
    if (!text.startsWith(CLAUDE_STRUCTURED_REMINDER)) return false;
    this.outcome.reminders += 1;
    this.log("claude reminded the model to call StructuredOutput (it had answered in text)", {
      layer: "native",
    });
    return true;
  }

  /** The result line: its `structured_output` and whether claude gave up. */
  result(line: Record<string, unknown>): void {
    if (isObject(line.structured_output)) this.outcome.structured = line.structured_output;
    if (line.subtype === CLAUDE_STRUCTURED_EXHAUSTED) this.outcome.gaveUp = true;
  }

  /** What happened so far (a copy). */
  summary(): ClaudeStructuredOutcome {
    return { ...this.outcome };
  }
}

/** The text the door reads when claude gave up: the last StructuredOutput input as JSON. */
export function lastStructuredText(outcome: ClaudeStructuredOutcome): string | null {
  return outcome.lastInput === undefined ? null : JSON.stringify(outcome.lastInput);
}

/** The per-send trace line saying what the native layer did. Never throws. */
export function describeStructuredOutcome(
  outcome: ClaudeStructuredOutcome,
  sendOk: boolean,
): { message: string; details: Record<string, unknown> } {
  const parts: string[] = [];
  if (outcome.gaveUp)
    parts.push(
      outcome.calls === 0
        ? `claude gave up without a StructuredOutput call (${CLAUDE_STRUCTURED_EXHAUSTED}); the door judges the model's text`
        : `claude gave up after ${outcome.calls} StructuredOutput call${outcome.calls === 1 ? "" : "s"} that did not match the schema (${CLAUDE_STRUCTURED_EXHAUSTED}); the door judges the last one`,
    );
  else if (outcome.structured !== null)
    parts.push(
      outcome.rejected === 0
        ? "claude accepted the model's StructuredOutput call and returned structured_output"
        : `claude rejected ${outcome.rejected} StructuredOutput call${outcome.rejected === 1 ? "" : "s"} against the schema and the model corrected ${outcome.rejected === 1 ? "it" : "them"} in claude's session; claude returned structured_output`,
    );
  else if (sendOk)
    parts.push("the model answered in text without a valid StructuredOutput call; the door judges the text");
  else parts.push("the send failed before a structured answer");
  if (outcome.reminders > 0)
    parts.push(
      `claude reminded the model ${outcome.reminders} time${outcome.reminders === 1 ? "" : "s"} to call StructuredOutput`,
    );
  return {
    message: `claude_code: native output schema passed (--json-schema); ${parts.join("; ")}`,
    details: {
      layer: "native",
      native_schema: true,
      flag: "--json-schema",
      structured_output: outcome.structured !== null,
      calls: outcome.calls,
      rejected: outcome.rejected,
      reminders: outcome.reminders,
      gave_up: outcome.gaveUp,
    },
  };
}
