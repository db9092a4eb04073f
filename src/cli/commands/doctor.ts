import path from "node:path";
import type { Command } from "commander";
import { checkConfigModels } from "../../config/model-check.js";
import type { RuntimeCheck } from "../../runtimes/runtime.js";
import { jsonTerminalSafe, terminalSafe } from "../../util/terminal-text.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { paint } from "../format.js";
import { reportError } from "../report-error.js";
import { agentSection, qualitySection, type Section, type SuiteCheck } from "./doctor-checks.js";

/** `sssf doctor` flags. */
export interface DoctorCommandOptions {
  config?: string;
  cwd?: string;
  /** `--json`: one JSON object on stdout (docs/json-output.md). */
  json?: boolean;
  /** `--run-suites`: run each quality suite once in the checkout. */
  runSuites?: boolean;
}

/** How one check ended, in `sssf doctor --json`. */
export type DoctorStatus = "ok" | "warning" | "problem";

/** One check in `sssf doctor --json`. */
export interface DoctorJsonCheck {
  /** `agents.builder`, `quality`. */
  subject: string;
  item: string;
  status: DoctorStatus;
  detail: string;
  /** Only for a suite `--run-suites` ran: how it ended and its last lines of output. */
  suite?: { passed: boolean; exit_code: number | null; duration_ms: number; last_lines: string[] };
}

/** The whole `sssf doctor --json` object. */
export interface DoctorJson {
  config: string;
  ok: boolean;
  problems: number;
  warnings: number;
  sections: { title: string; subject: string; checks: DoctorJsonCheck[] }[];
}

const statusOf = (check: RuntimeCheck): DoctorStatus =>
  !check.ok ? "problem" : check.warning ? "warning" : "ok";

const isSuiteCheck = (check: RuntimeCheck): check is SuiteCheck => "suite" in check;

function jsonCheck(subject: string, check: RuntimeCheck): DoctorJsonCheck {
  const row: DoctorJsonCheck = { subject, item: check.item, status: statusOf(check), detail: check.detail };
  if (isSuiteCheck(check))
    row.suite = {
      passed: check.suite.passed,
      exit_code: check.suite.exitCode,
      duration_ms: check.suite.durationMs,
      last_lines: check.suite.lastLines,
    };
  return row;
}

/** The sections as `sssf doctor --json` prints them. */
export function doctorJson(configFile: string, sections: readonly Section[]): DoctorJson {
  const checks = sections.flatMap((s) => s.checks);
  const problems = checks.filter((c) => statusOf(c) === "problem").length;
  return {
    config: configFile,
    ok: problems === 0,
    problems,
    warnings: checks.filter((c) => statusOf(c) === "warning").length,
    sections: sections.map((s) => ({
      title: s.title,
      subject: s.subject,
      checks: s.checks.map((c) => jsonCheck(s.subject, c)),
    })),
  };
}

/**
 * The text report: each section's checks once, with ✔, ! or ✘ (a failed suite's last lines under
 * it), then one closing line counting problems and warnings. Every problem is printed once.
 */
function printSections(out: NodeJS.WriteStream, configLine: string, sections: readonly Section[]): number {
  // Names, paths and what runtimes report (versions, CLI output) are shown, never acted on.
  const write = (text: string) => out.write(`${terminalSafe(text, { multiline: true })}\n`);
  write(configLine);
  let problems = 0;
  let warnings = 0;
  for (const section of sections) {
    write(terminalSafe(section.title));
    const items = section.checks.map((check) => terminalSafe(check.item));
    const width = Math.max(...items.map((item) => item.length));
    section.checks.forEach((check, index) => {
      const status = statusOf(check);
      const mark =
        status === "problem"
          ? paint(out, "red", "✘")
          : status === "warning"
            ? paint(out, "yellow", "!")
            : paint(out, "green", "✔");
      // The mark is painted after the text is made safe: sssf's own colour codes must survive.
      out.write(`  ${mark} ${(items[index] ?? "").padEnd(width)}  ${terminalSafe(check.detail)}\n`);
      if (isSuiteCheck(check) && !check.suite.passed)
        for (const line of check.suite.lastLines) out.write(`      ${terminalSafe(line)}\n`);
      if (status === "problem") problems++;
      else if (status === "warning") warnings++;
    });
  }
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const warned = warnings > 0 ? `, ${plural(warnings, "warning")} (!)` : "";
  write(problems === 0 ? `no problems found${warned}` : `${plural(problems, "problem")} (✘)${warned}`);
  return problems === 0 ? 0 : 1;
}

/**
 * `sssf doctor`: for every agent, its runtime's checks (binary and version, model, API-key variable
 * names — never values), its prompts; then the quality suites (found, or run once with
 * `--run-suites`). Exit 1 when a check fails; a broken config is exit 2 as everywhere, and so is a
 * `model`, `models` rung or fallback model its runtime says does not exist (`checkConfigModels`). `--json`
 * prints one `DoctorJson` object (or the error) on stdout instead.
 */
export async function doctorCommand(options: DoctorCommandOptions): Promise<number> {
  const json = options.json === true;
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    // A model no runtime of the roster can run is a config error (exit 2), as in sssf run.
    await checkConfigModels(config, runtimes);
    const sections = await Promise.all(config.agents.map((agent) => agentSection(config, agent)));
    const quality = await qualitySection(config, options.runSuites === true);
    if (quality) sections.push(quality);
    if (json) {
      const report = doctorJson(config.file ?? "", sections);
      process.stdout.write(`${jsonTerminalSafe(JSON.stringify(report))}\n`);
      return report.ok ? 0 : 1;
    }
    const configLine = `sssf doctor · config ${path.relative(cwd, config.file ?? "") || config.file}`;
    return printSections(process.stdout, configLine, sections);
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"), { json });
  }
}

/** `sssf doctor`. */
export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("check every agent's runtime, model, API-key variables and prompts, and the quality suites")
    .option("--run-suites", "run each configured quality suite once in the checkout (passed or failed)")
    .option("--json", "print every check as one JSON object on stdout (docs/json-output.md)")
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (options) => {
      process.exitCode = await doctorCommand(options);
    });
}
