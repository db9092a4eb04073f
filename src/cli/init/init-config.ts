/**
 * The text of the `sssf.config.yaml` that `sssf init` writes: the schema line for editors, defaults,
 * the default roster and the detected quality suites, with comments saying what to change.
 */
import type { DefaultAgentSpec } from "../../workflows/prompts/default-prompts.js";
import type { DetectedSuite } from "./detected-suite.js";

/** What the written config holds. */
export interface InitConfigOptions {
  codingAgent: string;
  /** "" leaves the model to the coding agent. */
  model: string;
  agents: readonly DefaultAgentSpec[];
  /** The `sdd` workflow's agents (`sssf init --sdd`), listed after `agents` under their own comment. */
  sddAgents?: readonly DefaultAgentSpec[];
  suites: readonly DetectedSuite[];
}

/** A YAML flow scalar: JSON strings are valid YAML and need no quoting rules of their own. */
const scalar = (value: string) => JSON.stringify(value);
const list = (values: readonly string[]) => `[${values.map(scalar).join(", ")}]`;

function qualityLines(suites: readonly DetectedSuite[]): string[] {
  if (suites.length === 0) {
    return [
      "# No quality commands were detected. Workflows that run suites (build-test, plan-build-test,",
      "# simple-sdlc, quality…) refuse to start until one is defined here, for example:",
      "#   test:",
      "#     command: [npm, test]",
      "#     timeout_seconds: 600",
      "quality: {}",
    ];
  }
  return [
    "# Quality suites, run as code phases from the repo root (detected by sssf init; edit freely).",
    "quality:",
    ...suites.flatMap((suite) => [
      `  ${suite.name}: # from ${suite.source}`,
      `    command: ${list(suite.command)}`,
      ...(suite.report === undefined ? [] : reportLines(suite.report)),
    ]),
  ];
}

/** `report:` of a suite: per-test results, `{report_file}` being a fresh path per run. */
function reportLines(report: NonNullable<DetectedSuite["report"]>): string[] {
  const where = report.file === undefined ? "" : `, file: ${scalar(report.file)}`;
  const comment =
    " # per-test results ({report_file}: a fresh path per run; docs/configuration.md, Per-test results)";
  return where === ""
    ? [`    report: ${report.format}${comment}`]
    : [`    report: { format: ${report.format}${where} }${comment}`];
}

/**
 * The roster entries of `agents` as YAML lines under `agents:` (two spaces in): `- name`, `purpose`,
 * `writes`. Used in the config and in the snippet `sssf init --sdd` prints for an existing config.
 * Deterministic; never throws.
 */
export function rosterLines(agents: readonly DefaultAgentSpec[]): string[] {
  return agents.flatMap((agent) => [
    `  - name: ${agent.name}`,
    `    purpose: ${scalar(agent.purpose)}`,
    `    writes: ${list(agent.writes)}`,
  ]);
}

/** The comment introducing the sdd agents in a roster. */
export const SDD_ROSTER_COMMENT =
  "  # The sdd workflow's agents (docs/sdd.md): each answers with the Markdown result contract.";

/**
 * The YAML text `sssf init` writes to `adws/adw_sssf_config/sssf.config.yaml`. It loads with
 * `loadConfig` once the prompt files exist. Deterministic; never throws.
 */
export function renderInitConfig(options: InitConfigOptions): string {
  const lines = [
    // Beside the config (init writes it there), so it resolves without node_modules: a global install,
    // a Python repository.
    "# yaml-language-server: $schema=./sssf.config.schema.json",
    "# sssf roster, defaults and quality suites, written by `sssf init`.",
    "# Every key is described in docs/configuration.md of the sssf package.",
    "",
    "defaults:",
    `  coding_agent: ${scalar(options.codingAgent)}`,
    `  model: ${scalar(options.model)}${options.model === "" ? ' # "" lets the coding agent choose' : ""}`,
    "",
    "# Prompts: adws/adw_data/prompt_engineering/<name>/{system,user}.md",
    "# writes: the globs an agent may change; [] means it only reports (its notes go to the run's",
    "# context_handoff directory, which sssf keeps).",
    "agents:",
    ...rosterLines(options.agents),
    ...(options.sddAgents?.length ? [SDD_ROSTER_COMMENT, ...rosterLines(options.sddAgents)] : []),
    "",
    ...qualityLines(options.suites),
    "",
  ];
  return lines.join("\n");
}
