/**
 * Loads `sssf.config.yaml` into `SssfConfig`. Three stages: reading and YAML syntax, the strict wire
 * schema, then semantic checks (duplicates, runtimes, exec commands, tool names, write patterns,
 * prompt files). The schema's problems and the semantic ones are reported together, in one pass: when
 * the schema refuses some fields, the semantic checks still run on the rest (`config-repair.ts`).
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { ConfigError, type ConfigProblem } from "../errors/config-error.js";
import { configIssueMessage, zodIssueProblems } from "../util/zod-issues.js";
import { problemsBeyondSchema } from "./config-repair.js";
import { resolveConfig } from "./config-resolve.js";
import { configWireSchema, DEFAULT_CONFIG_PATH } from "./config-schema.js";
import type { SssfConfig } from "./config-types.js";

export {
  AGENT_COLOR_PALETTE,
  configJsonSchema,
  DEFAULT_CONFIG_PATH,
  DEFAULT_DATA_DIR,
} from "./config-schema.js";

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  /** Repo root; relative paths, in the options and in the file, resolve against it. */
  cwd: string;
  /** The YAML file, absolute or relative to `cwd` (default `adws/adw_sssf_config/sssf.config.yaml`). */
  configPath?: string | undefined;
  /** Runtime ids `coding_agent` may name: the ids of the registry the run will use. */
  knownRuntimes: readonly string[];
}

function readConfigText(file: string, explicit: boolean): string {
  const hint = explicit ? "check --config" : 'run "sssf init" to create one, or pass --config';
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new ConfigError(file, [{ path: "", message: `config file not found: ${file}; ${hint}` }]);
  }
  if (!isFile)
    throw new ConfigError(file, [{ path: "", message: `config path is not a file: ${file}; ${hint}` }]);
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, [
      { path: "", message: `cannot read config file: ${(error as Error).message}` },
    ]);
  }
}

/** YAML text to a plain value, or every syntax problem with its line and column. */
function parseYaml(text: string): { value: unknown; problems: ConfigProblem[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { path: "", message: `line ${line}, column ${col}: ${error.message}` };
    });
    return { value: undefined, problems };
  }
  try {
    return { value: document.toJS(), problems: [] };
  } catch (error) {
    // Unresolvable aliases surface only when converting.
    return {
      value: undefined,
      problems: [{ path: "", message: (error as Error).message }],
    };
  }
}

function topLevelProblem(value: unknown): ConfigProblem | undefined {
  if (value === null || value === undefined) {
    return { path: "", message: "config file is empty; it needs at least an agents list" };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    const got = Array.isArray(value) ? "a list" : JSON.stringify(value);
    return { path: "", message: `expected a mapping (defaults, agents, …) at the top level, got ${got}` };
  }
  return undefined;
}

/** What the semantic checks find beside the schema's problems; [] when they cannot run. Never throws. */
function semanticProblems(
  value: unknown,
  issues: Parameters<typeof problemsBeyondSchema>[1],
  context: Parameters<typeof problemsBeyondSchema>[2],
): ConfigProblem[] {
  try {
    return problemsBeyondSchema(value, issues, context);
  } catch {
    return [];
  }
}

/**
 * Reads, validates and resolves the config: inheritance from `defaults`, seconds to ms, every path
 * absolute. A missing file is an error too (there are no silent defaults).
 *
 * @throws ConfigError listing every problem found (schema and semantic ones together), each with its
 *   wire path (`agents[0].color`).
 * @example
 * const config = loadConfig({ cwd: process.cwd() });
 * const builder = findAgent(config, "builder");
 */
export function loadConfig(options: LoadConfigOptions): SssfConfig {
  const repoRoot = path.resolve(options.cwd);
  const file = path.resolve(repoRoot, options.configPath ?? DEFAULT_CONFIG_PATH);
  const text = readConfigText(file, options.configPath !== undefined);
  const context = { repoRoot, file, knownRuntimes: options.knownRuntimes };

  const parsed = parseYaml(text);
  if (parsed.problems.length > 0) throw new ConfigError(file, parsed.problems);
  const shapeProblem = topLevelProblem(parsed.value);
  if (shapeProblem) throw new ConfigError(file, [shapeProblem]);

  const result = configWireSchema().safeParse(parsed.value, { reportInput: true, error: configIssueMessage });
  if (!result.success) {
    const schemaProblems = zodIssueProblems(result.error.issues, {
      wording: "config",
      schema: configWireSchema(),
    });
    throw new ConfigError(file, [
      ...schemaProblems,
      ...semanticProblems(parsed.value, result.error.issues, context),
    ]);
  }

  return resolved(file, resolveConfig(result.data, context));
}

function resolved(file: string, outcome: ReturnType<typeof resolveConfig>): SssfConfig {
  if (outcome.problems.length > 0) throw new ConfigError(file, outcome.problems);
  return outcome.config;
}
