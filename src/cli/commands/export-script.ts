/** `sssf export-script <adw_id>`: a stored run's model turns as a fake-model script (docs/testing.md). */
import { closeSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../errors/usage-error.js";
import { type ExportedScript, exportScript } from "../../export-script/export-script.js";
import { registerSecretEnv } from "../../util/secrets/redact.js";
import { jsonTerminalSafe, terminalSafe } from "../../util/terminal-text.js";
import { loadConfig } from "../builtin-plugins.js";
import { configOption, cwdOption } from "../cli-options.js";
import { reportError } from "../report-error.js";

interface ExportScriptCommandOptions {
  out?: string;
  agent?: string;
  force?: boolean;
  json?: boolean;
  config?: string;
  cwd?: string;
}

/** Writes `text` to `file` (its folders made): a new file, or with `force` a replacement (written aside, then renamed). */
function writeOut(file: string, text: string, force: boolean): void {
  const target = force ? `${file}.${process.pid}.tmp` : file;
  let fd: number;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    fd = openSync(target, force ? "w" : "wx");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new UsageError(`--out: ${file} exists; pass --force to replace it`, "--out");
    throw new UsageError(`--out: cannot write ${file} (${code ?? (error as Error).message})`, "--out");
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  if (force) renameSync(target, file);
}

/** `value` as one shell word: as is when plain, else single-quoted. */
const shellWord = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

/** The lines a person reads: what went in, what did not, how to play it. */
function summaryLines(exported: ExportedScript, out: string | undefined): string[] {
  const lines = [
    `run ${exported.adw_id}: ${exported.script.steps.length} step(s) from ${exported.agents
      .map(
        (agent) =>
          `${agent.agent} (${agent.coding_agent}: ${agent.sends} send(s), ${agent.turns} model turn(s))`,
      )
      .join(", ")}${out === undefined ? "" : ` written to ${out}`}`,
  ];
  for (const agent of exported.agents) if (agent.missing !== null) lines.push(`incomplete: ${agent.missing}`);
  for (const note of exported.notes) lines.push(`note: ${note}`);
  if (exported.redacted > 0)
    lines.push(
      `${exported.redacted} value(s) are redacted placeholders ([redacted:…]): a step playing one writes the placeholder`,
    );
  if (out !== undefined && exported.workflow !== null)
    lines.push(
      `play it: sssf run ${exported.workflow} ${shellWord(exported.request ?? "")} --fake-script ${shellWord(out)}`,
    );
  return lines;
}

async function exportScriptCommand(adwId: string, options: ExportScriptCommandOptions): Promise<number> {
  const json = options.json === true;
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    // Values of the agents' secret env variables are redacted too, as the run redacted them.
    for (const { env } of [...config.agents, ...Object.values(config.quality)]) registerSecretEnv(env);
    const exported = exportScript({
      sessionsDir: config.sessionsDir,
      adwId,
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    });
    if (exported.script.steps.length === 0)
      throw new UsageError(
        `run ${adwId} has no model turns to export: ${exported.agents.map((a) => a.missing ?? `${a.agent}: none recorded`).join("; ") || "no agents"}`,
        "<adw_id>",
      );
    const text = `${JSON.stringify(exported.script, null, 2)}\n`;
    const out = options.out === undefined ? undefined : path.resolve(cwd, options.out);
    if (out !== undefined) writeOut(out, text, options.force === true);
    if (json) {
      const { script, ...summary } = exported;
      const body = {
        ...summary,
        out: out ?? null,
        steps: script.steps.length,
        ...(out === undefined ? { script } : {}),
      };
      process.stdout.write(`${jsonTerminalSafe(JSON.stringify(body))}\n`);
    } else {
      // Without --out the script is stdout's (for a pipe); what a person reads goes to stderr.
      if (out === undefined) process.stdout.write(text);
      const stream = out === undefined ? process.stderr : process.stdout;
      stream.write(
        summaryLines(exported, out)
          .map((line) => `${terminalSafe(line)}\n`)
          .join(""),
      );
    }
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"), { json });
  }
}

/** `sssf export-script <adw_id> [--out FILE] [--agent NAME] [--force] [--json]`. */
export function registerExportScript(program: Command): void {
  program
    .command("export-script")
    .description(
      "write a stored run's model turns as a fake-model script, to replay it offline (--fake-script)",
    )
    .argument("<adw_id>", "the run to export")
    .option("--out <file>", "write the script here (default: stdout); an existing file needs --force")
    .option("--agent <name>", "only this agent's turns")
    .option("--force", "replace the --out file when it exists")
    .option("--json", "print a JSON summary on stdout (the script inside it without --out)")
    .addOption(configOption())
    .addOption(cwdOption())
    .action(async (adwId: string, options: ExportScriptCommandOptions) => {
      process.exitCode = await exportScriptCommand(adwId, options);
    });
}
