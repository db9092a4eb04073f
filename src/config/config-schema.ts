/**
 * The wire shape of `sssf.config.yaml` (snake_case, seconds) as one strict zod schema, its defaults,
 * and the JSON Schema editors use to flag unknown keys. `load-config.ts` turns the parsed wire value into
 * `SssfConfig`; nothing else should read the YAML.
 */
import { z } from "zod";
import { THINKING_LEVELS } from "../runtimes/runtime.js";
import { TOOL_NAMES, type ToolName } from "../runtimes/tool-names.js";
import { describeValue } from "../util/zod-issues.js";
import { engineSectionSchema, traceSectionSchema } from "./cluster-schema.js";
import { otlpSectionSchema } from "./otlp-schema.js";
import { suiteReportSchema } from "./report-schema.js";

/** Where `sssf` looks for the roster, relative to the repo root. */
export const DEFAULT_CONFIG_PATH = "adws/adw_sssf_config/sssf.config.yaml";
/** Where sessions, prompts and the trace db live, relative to the repo root. */
export const DEFAULT_DATA_DIR = "adws/adw_data";
/** Runtime ids sssf ships; `coding_agent` must name one of these unless the caller registers more. */
/** Colours handed to agents without one, by position in the roster (wrapping after eight). */
export const AGENT_COLOR_PALETTE = [
  "#4f9cf9",
  "#f97316",
  "#22c55e",
  "#a855f7",
  "#eab308",
  "#ec4899",
  "#14b8a6",
  "#ef4444",
] as const;
/** Tools an agent gets when neither it nor `defaults` lists any. */
export const DEFAULT_TOOLS = ["read", "bash", "edit", "write"] as const satisfies readonly ToolName[];
/** Agent names become directory names, so they stay lowercase and path-safe. */
export const AGENT_NAME_PATTERN = /^[a-z][a-z0-9_-]*$/;

/** Builds the wire schema: zod builds a schema's checks as it is declared, so it is built on first use. */
function buildConfigWireSchema() {
  const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

  const nameSchema = (what: string, why: string) =>
    z.string().regex(AGENT_NAME_PATTERN, {
      error: (issue) =>
        `expected a lowercase ${what} matching ${AGENT_NAME_PATTERN.source}${why}, got ${describeValue(issue.input)}`,
    });

  /** Custom wording for a wrong type; a missing key falls through to the generic "required". */
  const expected = (what: string) => (issue: { input?: unknown }) =>
    issue.input === undefined ? undefined : `expected ${what}, got ${describeValue(issue.input)}`;

  const stringList = (what: string) => z.array(z.string().min(1), { error: expected(`a list of ${what}`) });

  /** Tool names: free-form strings (exec agents define their own), sssf's names offered to editors. */
  const toolList = () =>
    z.array(
      z
        .string()
        .min(1)
        .meta({ examples: [...TOOL_NAMES] }),
      { error: expected("a list of tool names") },
    );

  const commandSchema = z
    .array(z.string().min(1), { error: expected("a command as a list of strings, e.g. [node, agent.mjs]") })
    .min(1, { error: "expected at least the program to run" });

  const envSchema = z
    .record(z.string(), z.string())
    .describe("Extra environment variables; values must be strings (quote numbers).");

  const seconds = z.number().positive();
  const usd = z.number().positive();
  const tokenCount = z.int().positive();
  const usdPerMillion = z.number().nonnegative();

  const TOOLS_NOTE = `sssf tool names (${TOOL_NAMES.join(", ")}); [] means no tools at all; free-form for exec agents.`;
  const FOLDER_NOTE = "a trailing / means the folder and everything under it (specs/ is specs/**)";

  const thinkingSchema = z
    .union([z.enum(THINKING_LEVELS), z.literal(false)], {
      error: (issue) => `expected one of ${THINKING_LEVELS.join(", ")}, got ${describeValue(issue.input)}`,
    })
    .describe("Reasoning effort. `false` (what YAML 1.1 tools make of `off`) is read as off.");

  const agentTimeoutsSchema = z
    .object({
      idle_seconds: seconds.optional().describe("Kill the call after this long without output."),
      wall_seconds: seconds.optional().describe("Kill the call after this long in total."),
    })
    .strict()
    .describe("Per-key override of defaults.timeouts.");

  const agentLimitsSchema = z
    .object({
      max_cost_usd: usd
        .optional()
        .describe("Fail a phase of this agent once its sends have cost more than this (USD, per phase)."),
      max_tokens: tokenCount
        .optional()
        .describe(
          "Fail a phase of this agent once its sends have used more tokens than this (all kinds, per phase).",
        ),
      max_seconds: seconds
        .optional()
        .describe("Fail a phase of this agent once it has run longer than this (per phase)."),
    })
    .strict()
    .describe(
      "Budgets of every phase this agent owns; a workflow's per-phase budget overrides them key by key.",
    );

  const priceSchema = z
    .object({
      input: usdPerMillion.describe("USD per million uncached input tokens."),
      output: usdPerMillion.describe("USD per million output tokens (reasoning included)."),
      cache_read: usdPerMillion
        .optional()
        .describe("USD per million cache-read tokens; default: the input price."),
      cache_write: usdPerMillion
        .optional()
        .describe("USD per million cache-write tokens; default: the input price."),
    })
    .strict();

  const defaultsSchema = z
    .object({
      coding_agent: z
        .string()
        .min(1)
        .default("pi")
        .describe("Runtime id: a runtime sssf registers (the built-in ones are listed in docs/runtimes/)."),
      model: z.string().default("").describe('Model id; "" leaves the choice to the runtime.'),
      thinking: thinkingSchema.default("off"),
      tools: toolList()
        .default([...DEFAULT_TOOLS])
        .describe(`Tool allowlist: ${TOOLS_NOTE}`),
      protected_files: stringList("globs")
        .optional()
        .describe(
          `Repo-relative globs no agent may write, whatever its writes say; ${FOLDER_NOTE}. Default: .env, .env.*, adws/adw_sssf_config/**, adws/adw_*.{ts,mts,js,mjs}, adws/adw_modules/**, <data_dir>/prompt_engineering/**.`,
        ),
      data_dir: z.string().min(1).default(DEFAULT_DATA_DIR).describe("Sessions, prompts and the trace db."),
      timeouts: z
        .object({
          idle_seconds: seconds.default(300).describe("Kill an agent call after this long without output."),
          wall_seconds: seconds.default(1800).describe("Kill an agent call after this long in total."),
        })
        .strict()
        .prefault({}),
    })
    .strict()
    .describe("Values every agent inherits unless it sets its own.");

  const sandboxModeSchema = z.enum(["auto", "required", "off"], {
    error: (issue) => `expected auto, required or off, got ${describeValue(issue.input)}`,
  });
  const networkSchema = z
    .union([z.literal("open"), z.array(z.string().min(1))], {
      error: (issue) =>
        `expected "open" or a list of hosts ([] for no network), got ${describeValue(issue.input)}`,
    })
    .describe('"open" (the default): the host\'s network; []: none at all.');
  /** The keys of `sandbox:`, with or without defaults (an agent's block overrides key by key). */
  const sandboxKeys = {
    mode: sandboxModeSchema.describe(
      "auto: agents run inside an OS sandbox wherever one is supported (bubblewrap on Linux, sandbox-exec on macOS); required: refuse to start an agent without one; off: the write boundary alone.",
    ),
    allow_write: stringList("paths").describe(
      "More paths the agent may write inside the sandbox (~ is the home folder; relative paths are from the repo root).",
    ),
    deny_read: stringList("paths").describe(
      "More paths the agent may not read inside the sandbox, besides the built-in credential list.",
    ),
    network: networkSchema,
  };
  const agentSandboxSchema = z
    .object({
      mode: sandboxKeys.mode.optional(),
      allow_write: sandboxKeys.allow_write.optional(),
      deny_read: sandboxKeys.deny_read.optional(),
      network: sandboxKeys.network.optional(),
    })
    .strict()
    .describe("Overrides the top-level sandbox: key by key for this agent.");

  const agentSchema = z
    .object({
      name: nameSchema("agent name", " (it becomes a directory name)").describe(
        "Unique agent name; also its directory name.",
      ),
      purpose: z.string().default("").describe("One line on what this agent is for."),
      color: z
        .string()
        .regex(COLOR_PATTERN, {
          error: (issue) =>
            `expected a colour like "#4f9cf9" (#rgb or #rrggbb), got ${describeValue(issue.input)}`,
        })
        .optional()
        .describe("CSS colour for the terminal and the UI; default from a fixed palette."),
      model: z.string().optional().describe("Overrides defaults.model."),
      models: stringList("model ids")
        .optional()
        .describe(
          "A model ladder, cheapest first: when a phase's corrections run out on one model it starts again, fresh, on the next; model, if set, must be models[0] (docs/reliability.md).",
        ),
      thinking: thinkingSchema.optional(),
      coding_agent: z.string().min(1).optional().describe("Overrides defaults.coding_agent."),
      command: commandSchema
        .optional()
        .describe("argv of the agent program; required for coding_agent: exec."),
      prompt_engineering: z
        .object({
          system: z.string().min(1).optional().describe("System prompt file."),
          user: z.string().min(1).optional().describe("User prompt template file."),
        })
        .strict()
        .optional()
        .describe("Prompt files; default <data_dir>/prompt_engineering/<name>/{system,user}.md."),
      tools: stringList("tool names").optional().describe(`Overrides defaults.tools: ${TOOLS_NOTE}`),
      writes: stringList("paths")
        .default(["**"])
        .describe(`Repo-relative globs this agent may write; ${FOLDER_NOTE}.`),
      timeouts: agentTimeoutsSchema.optional(),
      limits: agentLimitsSchema.optional(),
      fallback: z
        .array(
          z.union(
            [
              z.string().min(1),
              z.strictObject({ agent: z.string().min(1).describe("Another agent of the roster.") }),
            ],
            {
              error: (issue) => `expected a model id or { agent: <name> }, got ${describeValue(issue.input)}`,
            },
          ),
          { error: expected("a list of models or { agent: <name> } entries") },
        )
        .optional()
        .describe(
          "Where a send goes when this agent is rate-limited or out of quota for longer than limits.rate_limit_wait_seconds, in order: a model id (this agent's runtime with that model) or { agent: <name> } (another agent with the same output contract) (docs/rate-limits.md).",
        ),
      sandbox: agentSandboxSchema.optional(),
      env: envSchema.default({}),
    })
    .strict();

  const reportSchema = suiteReportSchema();

  const qualitySuiteSchema = z
    .object({
      command: commandSchema.describe("argv of the check, run from the repo root."),
      timeout_seconds: seconds.default(600).describe("Kill the check after this long."),
      env: envSchema.default({}),
      baseline: z
        .boolean()
        .optional()
        .describe(
          "When the check fails after a change, run it at the run's base commit first (default true); false: spend fix rounds even on a check that already failed there.",
        ),
      report: reportSchema.optional(),
    })
    .strict();

  // The whole YAML file. Every section is optional except `agents`.
  return z
    .object({
      defaults: defaultsSchema.prefault({}),
      agents: z
        .array(agentSchema, { error: expected("a list of agents") })
        .min(1, { error: "expected at least one agent" })
        .describe("The roster."),
      sandbox: z
        .object({
          mode: sandboxKeys.mode.default("auto"),
          allow_write: sandboxKeys.allow_write.default([]),
          deny_read: sandboxKeys.deny_read.default([]),
          network: sandboxKeys.network.default("open"),
        })
        .strict()
        .prefault({})
        .describe("The OS sandbox every agent runs in (docs/sandbox.md)."),
      merge: z
        .object({
          strategy: z
            .enum(["ff", "merge-commit"], {
              error: (issue) => `expected ff or merge-commit, got ${describeValue(issue.input)}`,
            })
            .default("ff")
            .describe(
              "How sssf merge lands an accepted run's branch: ff fast-forwards only (refused when the base moved); merge-commit makes a merge commit when the base moved (a fast-forward otherwise).",
            ),
        })
        .strict()
        .prefault({})
        .describe("sssf merge <adw_id> (docs/worktrees.md)."),
      observability: z
        .object({
          db: z
            .string()
            .min(1)
            .optional()
            .describe("Trace database; default <data_dir>/sssf.db (the SSSF_DB environment variable wins)."),
          otlp: otlpSectionSchema(),
        })
        .strict()
        .prefault({}),
      trace: traceSectionSchema(),
      engine: engineSectionSchema(seconds),
      limits: z
        .object({
          json_fix_attempts: z
            .int()
            .min(0)
            .max(10)
            .default(2)
            .describe("Corrections after invalid JSON, per gate round."),
          retries: z
            .int()
            .min(0)
            .max(10)
            .default(1)
            .describe("Default gate-violation corrections per agent phase."),
          max_result_bytes: z
            .int()
            .positive()
            .default(16_777_216)
            .describe("Largest final agent message kept."),
          max_cost_usd: usd
            .optional()
            .describe("Fail the run's agent phases once the session has cost more than this (USD)."),
          max_tokens: tokenCount
            .optional()
            .describe(
              "Fail the run's agent phases once the session has used more tokens than this (all kinds).",
            ),
          max_run_seconds: seconds
            .optional()
            .describe("Fail the run's agent phases once this sssf run has lasted longer than this."),
          rate_limit_wait_seconds: z
            .number()
            .nonnegative()
            .optional()
            .describe(
              "The longest sssf waits, in total, for one send refused by a rate limit (honouring the provider's reset time) before it moves to the agent's next fallback; default 300, 0: never wait (docs/rate-limits.md).",
            ),
          max_best_of: z
            .number()
            .int()
            .min(1)
            .optional()
            .describe(
              "The most attempts a best-of phase may run side by side (`--best-of N`, `bestOf.attempts`); default 5 (docs/reliability.md).",
            ),
        })
        .strict()
        .prefault({}),
      prices: z
        .record(z.string().min(1), priceSchema)
        .default({})
        .describe(
          "Prices by model id, for runtimes that report tokens but no cost (codex, gemini); over sssf's defaults.",
        ),
      quality: z
        .record(nameSchema("suite name", ""), qualitySuiteSchema)
        .default({})
        .describe("Quality suites by name (test, lint, typecheck…)."),
    })
    .strict()
    .meta({ title: "sssf config", description: "Roster, defaults, limits and quality commands of sssf." });
}

let wireSchema: ReturnType<typeof buildConfigWireSchema> | undefined;

/** The whole YAML file's strict schema (every section optional except `agents`), built on first use. */
export function configWireSchema(): ReturnType<typeof buildConfigWireSchema> {
  wireSchema ??= buildConfigWireSchema();
  return wireSchema;
}

/** The validated wire value, defaults of the wire schema applied, not yet resolved against the repo. */
export type ConfigWire = z.output<ReturnType<typeof buildConfigWireSchema>>;

/**
 * JSON Schema (draft 2020-12) of the YAML file, for `# yaml-language-server: $schema=…`.
 * Describes the input side, so keys with defaults are optional. Never throws; deterministic.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configWireSchema(), { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}
