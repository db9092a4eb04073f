import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { DEFAULT_CONFIG_PATH, DEFAULT_DATA_DIR } from "../../config/config-schema.js";
import { UsageError } from "../../errors/usage-error.js";
import { BUILTIN_RUNTIME_IDS } from "../../runtimes/builtins.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { defaultAgents, defaultPrompts, sddAgents } from "../../workflows/prompts/default-prompts.js";
import { cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";
import { renderInitConfig } from "./init-config.js";
import { detectQualitySuites } from "./init-detect.js";
import { createFileIfAbsent, type FileOutcome, updateGitignore, writeConfigSchema } from "./init-files.js";
import { sddSnippetLines } from "./init-sdd.js";

/** The flags of `sssf init`. */
export interface InitCommandOptions {
  cwd?: string;
  codingAgent?: string;
  model?: string;
  /** Also write the `sdd` workflow's eight agents (roster entries and prompts). */
  sdd?: boolean;
}

/** Runtimes `init` can name for every agent; `exec` needs a command per agent, written by hand. */
const INIT_RUNTIMES = BUILTIN_RUNTIME_IDS.filter((id) => id !== "exec");

function checkOptions(options: InitCommandOptions): { root: string; codingAgent: string; model: string } {
  const root = path.resolve(options.cwd ?? process.cwd());
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new UsageError(`--cwd: ${root} is not a directory`, "--cwd");
  const codingAgent = options.codingAgent ?? "pi";
  if (!(INIT_RUNTIMES as readonly string[]).includes(codingAgent)) {
    // A runtime sssf has but init cannot set up for a whole roster: exec, which needs a command per agent.
    const known = BUILTIN_RUNTIME_IDS.includes(codingAgent);
    const hint = known ? ` (${codingAgent} needs a command per agent: see docs/exec-protocol.md)` : "";
    throw new UsageError(
      `--coding-agent: expected one of ${INIT_RUNTIMES.join(", ")}, got "${codingAgent}"${hint}`,
      "--coding-agent",
    );
  }
  const model = options.model ?? "";
  if (options.model !== undefined && model.trim() === "")
    throw new UsageError("--model: expected a model id, got an empty string", "--model");
  return { root, codingAgent, model };
}

/** Prints a line; paths and detected suites come from the repo, so they are shown, never acted on. */
function line(text = ""): void {
  process.stdout.write(`${terminalSafe(text, { multiline: true })}\n`);
}

/** `word` as a POSIX shell word, so the printed command can be pasted as it is. */
function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The paths `git add` takes for what this init created or changed: folders for the config and prompts. */
function filesToCommit(
  outcomes: readonly FileOutcome[],
  schemaChanged: boolean,
  gitignoreChanged: boolean,
): string[] {
  const created = outcomes.filter((outcome) => outcome.status === "created").map((outcome) => outcome.path);
  const configDir = path.posix.dirname(DEFAULT_CONFIG_PATH);
  const promptsDir = `${DEFAULT_DATA_DIR}/prompt_engineering`;
  return [
    ...(schemaChanged || created.includes(DEFAULT_CONFIG_PATH) ? [configDir] : []),
    ...(created.some((file) => file.startsWith(`${promptsDir}/`)) ? [promptsDir] : []),
    ...(gitignoreChanged ? [".gitignore"] : []),
  ];
}

/**
 * `sssf init`: writes the config (roster of planner, builder, scout, reviewer, documenter, plus the eight
 * sdd agents with `sdd`; the quality suites it detects), each agent's `system.md` and `user.md`, and
 * the `.gitignore` lines, and refreshes the config's generated JSON Schema beside it. Never overwrites
 * anything else: an existing file is reported as skipped and left byte-for-byte; with `sdd` and an
 * existing config, the roster lines to add by hand are printed. Ends with the `git add … && git commit`
 * for what it wrote. Returns the exit code.
 */
export async function initCommand(options: InitCommandOptions): Promise<number> {
  try {
    const { root, codingAgent, model } = checkOptions(options);
    const agents = defaultAgents();
    const sdd = options.sdd ? sddAgents() : [];
    const detection = detectQualitySuites(root);
    const outcomes: FileOutcome[] = [
      createFileIfAbsent(
        root,
        DEFAULT_CONFIG_PATH,
        renderInitConfig({ codingAgent, model, agents, sddAgents: sdd, suites: detection.suites }),
      ),
    ];
    for (const agent of [...agents, ...sdd]) {
      const prompts = defaultPrompts(agent.name);
      const dir = `${DEFAULT_DATA_DIR}/prompt_engineering/${agent.name}`;
      outcomes.push(createFileIfAbsent(root, `${dir}/system.md`, prompts.system));
      outcomes.push(createFileIfAbsent(root, `${dir}/user.md`, prompts.user));
    }
    const schema = writeConfigSchema(root);
    const gitignore = updateGitignore(root);

    line(`sssf init in ${root}`);
    for (const outcome of outcomes) {
      line(outcome.status === "created" ? `  created ${outcome.path}` : `  skipped ${outcome.path} (exists)`);
    }
    if (schema.status === "unchanged") line(`  skipped ${schema.path} (up to date)`);
    else
      line(`  ${schema.status} ${schema.path}${schema.status === "updated" ? " (this sssf's schema)" : ""}`);
    if (gitignore.status === "unchanged") line("  skipped .gitignore (already has the sssf lines)");
    else line(`  ${gitignore.status} .gitignore (+${gitignore.added.length} lines)`);
    const configWritten = outcomes[0]?.status === "created";

    line();
    if (detection.suites.length === 0) {
      line("quality suites: none detected");
      line("  workflows that run suites (build-test, plan-build-test, simple-sdlc, quality…) refuse to run");
      line(`  until you add one under quality: in ${DEFAULT_CONFIG_PATH}`);
    } else {
      line(`quality suites detected${configWritten ? "" : " (not written: the config already exists)"}:`);
      const width = Math.max(...detection.suites.map((s) => s.name.length));
      for (const suite of detection.suites) {
        line(`  ${suite.name.padEnd(width)}  ${suite.command.join(" ")}  (${suite.source})`);
      }
    }
    for (const note of detection.notes) line(`  note: ${note}`);
    if (sdd.length > 0 && !configWritten) {
      line();
      for (const text of sddSnippetLines(root, DEFAULT_CONFIG_PATH, sdd)) line(text);
    }

    line();
    const where = options.cwd === undefined ? "" : ` --cwd ${options.cwd}`;
    const toCommit = filesToCommit(outcomes, schema.status !== "unchanged", gitignore.status !== "unchanged");
    if (toCommit.length > 0) {
      line("commit what init wrote (runs leave it out of their uncommitted-changes warning until then):");
      const git = options.cwd === undefined ? "git" : `git -C ${shellWord(options.cwd)}`;
      line(`  ${git} add ${toCommit.join(" ")} && ${git} commit -m "Add sssf config and prompts"`);
      line();
    }
    line("next steps:");
    line(
      `  review the roster in ${DEFAULT_CONFIG_PATH} and the prompts in ${DEFAULT_DATA_DIR}/prompt_engineering/`,
    );
    line(`  sssf doctor${where}    check runtimes, models, keys and quality commands`);
    line(`  sssf run plan-build-test "<your request>"${where}`);
    if (sdd.length > 0) line(`  sssf run sdd "<your request>"${where}    spec-driven: explore → … → archive`);
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf init`. */
export function registerInit(program: Command): void {
  program
    .command("init")
    .description(
      "write the roster, prompts, detected quality suites, the config's schema and .gitignore lines (never overwrites what you wrote)",
    )
    .addOption(cwdOption())
    .option(
      "--coding-agent <id>",
      "runtime every agent uses: pi, claude_code, codex, gemini or opencode (default pi)",
    )
    .option("--model <id>", "model every agent uses (default: the coding agent's own choice)")
    .option("--sdd", "also write the sdd workflow's eight agents and their prompts (docs/sdd.md)")
    .action(async (options) => {
      process.exitCode = await initCommand(options);
    });
}
