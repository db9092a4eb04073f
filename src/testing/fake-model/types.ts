/**
 * Public types of the fake model server: the script it plays, what it records, and its handle.
 * Script and log fields are wire names (JSON files, control endpoints), kept to single words or the
 * camelCase the script format was specified with.
 */

/** The four wire APIs the fake serves. */
export type FakeApi = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** Token counts a step reports; missing ones are estimated from the request and reply sizes. */
export interface FakeUsage {
  /** Uncached input tokens (OpenAI and Gemini totals add `cacheRead` and `cacheWrite` to this). */
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Conditions a request must meet for a step to answer it; all given ones must hold. */
export interface FakeMatch {
  /** Substring of the last user text (tool results are not user text). */
  text?: string;
  /**
   * Substring of the whole request body as sent: the system prompt, the tools, the history. pi and
   * the other CLIs name their working directory in the system prompt, so a best-of attempt's worktree
   * (`…/build-attempt-2`) tells its requests apart: `anywhere: "attempt-2"`.
   */
  anywhere?: string;
  /** The conversation ends with a tool result (true) or does not (false). */
  afterToolResult?: boolean;
  /** The request offers at least one tool (true) or none (false): skips title and router calls. */
  hasTools?: boolean;
  api?: FakeApi;
  /** Exact model id (from the body, or from the URL for Gemini). */
  model?: string;
  /**
   * The request carries a native output schema (true) or none (false): claude's `StructuredOutput`
   * tool or an Anthropic `output_format`, a Responses `text.format` or chat `response_format` of type
   * `json_schema`, a Gemini response schema.
   */
  nativeSchema?: boolean;
}

/**
 * One scripted answer. `reply` and one of `tool`/`writeFile` may be combined (text, then the call);
 * `structured` goes with `reply` only; `error` and `hang` stand alone. A step with none of them gives
 * the default reply with its `usage`. `delayMs` holds any answer but a hang back by that long.
 */
export interface FakeStep {
  match?: FakeMatch;
  /** Assistant text. */
  reply?: string;
  /**
   * The model's structured answer, sent the way the request's API returns structured output: a call of
   * claude's `StructuredOutput` tool (Anthropic), or a message whose text is this JSON (Responses,
   * chat, Anthropic `output_format`, Gemini). A request without a native schema gets `reply` instead
   * when the step has one (what the model writes unconstrained), else this JSON as text. The fake does
   * not check the value against the schema: the CLI and sssf's door do.
   */
  structured?: Record<string, unknown>;
  /** A raw tool call by exact tool name; a freeform (custom) tool gets `args.input` as its input. */
  tool?: { name: string; args: Record<string, unknown> };
  /** "Write this file": the server picks the write tool and its argument names from the request. */
  writeFile?: { path: string; content: string };
  /** Answer with this HTTP status and message, in the API's error shape. */
  error?: { status: number; message: string };
  /**
   * Answer with a scripted HTTP error: status, extra headers (`retry-after`…) and a body (JSON or
   * text) sent as given; without a body, the provider's own shape for `kind` (docs/fake-model.md).
   */
  httpError?: FakeHttpError;
  /** How many matching requests this step answers before it is used up (default 1; `repeat` wins). */
  times?: number;
  /** Accept the request and never answer it. */
  hang?: boolean;
  /**
   * Wait this many milliseconds (a non-negative integer) before the first byte of the answer, streamed
   * or not, error or reply. The step is taken when the request arrives, so a later request cannot take
   * it during the wait; the log entry is written when the answer is sent.
   */
  delayMs?: number;
  usage?: FakeUsage;
  /** Keep the step after it answers (default: consumed). */
  repeat?: boolean;
}

/** What a rate limit, a spent quota or an overload looks like on the wire (the default body's shape). */
export type FakeErrorKind = "rate_limit" | "usage_limit" | "overloaded" | "server_error";

/** A scripted HTTP error; see `FakeStep.httpError`. */
export interface FakeHttpError {
  status: number;
  /** Default: `overloaded` for 529 and 503, `rate_limit` for 429, `server_error` otherwise. */
  kind?: FakeErrorKind;
  /** Sent as given, such as `{"retry-after": "2"}` or `{"x-ratelimit-reset-requests": "20s"}`. */
  headers?: Record<string, string>;
  /** A JSON value or a text sent as the body instead of the provider-shaped default. */
  body?: unknown;
  /** The message inside the default body. */
  message?: string;
}

/** Steps tried in order; `fallback` says what answers a request no step matches (default `echo`). */
export interface FakeScript {
  steps: FakeStep[];
  fallback?: "echo" | "error";
}

/** The headers worth keeping; keys are truncated to 12 characters. */
export interface LoggedHeaders {
  "user-agent"?: string;
  "x-api-key"?: string;
  "x-goog-api-key"?: string;
  authorization?: string;
  "anthropic-beta"?: string;
  "anthropic-version"?: string;
}

/** One request the fake received (control endpoints under `/__` are not logged). */
export interface LoggedRequest {
  kind: "request";
  /** ISO time the request was answered (or, for a hang, accepted). */
  time: string;
  /** ISO time its body had been read: `time` − `received` is how long the client waited on the model. */
  received: string;
  method: string;
  /** Path and query as received (an absolute-URI request through the proxy is reduced to its path). */
  path: string;
  headers: LoggedHeaders;
  /** The parsed JSON body, the raw text when it is not JSON, or null when empty. */
  body: unknown;
  /** Size of the body as received, in bytes (what a provider bills and caches by). */
  bytes: number;
  /** The wire API the route belongs to, or null (model list, unknown route). */
  api: FakeApi | null;
  /**
   * Index of the step that answered, "default" when none matched, null for non-generation routes and
   * for requests the API refuses before generating (an invalid strict schema).
   */
  step: number | "default" | null;
  /** HTTP status sent, or null while the request hangs. */
  status: number | null;
}

/** A refused attempt to reach a host other than loopback through the proxy. */
export interface EgressAttempt {
  kind: "egress";
  time: string;
  /** `CONNECT` or the method of an absolute-URI request. */
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
}

/** Options of `createFakeModelServer`. */
export interface CreateFakeModelServerOptions {
  /** Initial script (default: no steps, echo fallback). */
  script?: FakeScript;
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  port?: number;
  /** JSONL file every logged request and egress attempt is appended to (created with its folder). */
  logFile?: string;
}

/** A running fake model server bound to 127.0.0.1. */
export interface FakeModelServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  /** Every logged request so far, oldest first (a copy). */
  requests(): LoggedRequest[];
  /** Every refused egress attempt so far, oldest first (a copy). */
  egress(): EgressAttempt[];
  /** Replaces the script; all its steps start unconsumed. Throws on an invalid script. */
  setScript(script: FakeScript): void;
  /** Appends steps to the current script. Throws on an invalid step. */
  enqueue(...steps: FakeStep[]): void;
  /** Clears both logs in memory (not the log file), un-consumes every step and turns `hang` off. */
  reset(): void;
  /** While on, every model request is accepted and never answered. */
  hang(on: boolean): void;
  /** Stops listening and drops open connections (hanging requests included). Idempotent. */
  close(): Promise<void>;
  /** Resolves once the server has closed, by `close()` or by `POST /__shutdown`. */
  closed: Promise<void>;
}
