import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { suggestToolName } from "../../config/config-tools.js";
import type { AgentConfig, SssfConfig } from "../../config/config-types.js";
import { findTemplateReport } from "../../envelope/report-placement.js";
import type { RuntimeCheck } from "../../runtimes/runtime.js";
import { isToolName } from "../../runtimes/tool-names.js";
import { findExecutable } from "../../util/find-executable.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { paint } from "../format.js";
import { reportError } from "../report-error.js";

interface Section {
  title: string;
  subject: string;
  checks: RuntimeCheck[];
}

/** A hand-written `## Report` in user.md is replaced by every call's own; naming a type, it misleads readers. */
function reportCheck(agent: AgentConfig): RuntimeCheck[] {
  let template: string;
  try {
    template = readFileSync(agent.userPromptPath, "utf8");
  } catch {
    return [];
  }
  const report = findTemplateReport(template);
  if (!report || report.generated || report.namedTypes.length === 0) return [];
  return [
    {
      ok: true,
      warning: true,
      item: "user.md Report",
      detail: `hand-written ## Report names ${report.namedTypes.join(", ")}; every call replaces it with the contract of its own output type (put instructions above the section, or delete it: each call adds its own)`,
    },
  ];
}

/**
 * The tools the agent is given. The config check already refused unknown names for every runtime but
 * exec, whose program defines its own tools; names there that are not sssf's are a warning, in case
 * they are typos of sssf's.
 */
function toolsCheck(agent: AgentConfig): RuntimeCheck[] {
  const listed = agent.tools.length === 0 ? "none (tools: [])" : agent.tools.join(", ");
  const unknown = agent.tools.filter((tool) => !isToolName(tool));
  if (unknown.length === 0) return [{ ok: true, item: "tools", detail: listed }];
  const notes = unknown.map((tool) => {
    const suggestion = suggestToolName(tool);
    return `${JSON.stringify(tool)}${suggestion === undefined ? "" : ` (did you mean ${JSON.stringify(suggestion)}?)`}`;
  });
  return [
    {
      ok: true,
      warning: true,
      item: "tools",
      detail: `${listed}; not sssf tool names, passed to the exec program as written: ${notes.join(", ")}`,
    },
  ];
}

function promptChecks(agent: AgentConfig): RuntimeCheck[] {
  return [agent.systemPromptPath, agent.userPromptPath].map((file) => {
    const item = path.basename(file);
    try {
      const size = statSync(file).size;
      return size > 0
        ? { ok: true, item, detail: `${file} (${size} bytes)` }
        : { ok: false, item, detail: `${file} is empty` };
    } catch {
      return { ok: false, item, detail: `${file} not found` };
    }
  });
}

async function agentSection(config: SssfConfig, agent: AgentConfig): Promise<Section> {
  const title = `agent ${agent.name} (${agent.codingAgent}${agent.model ? `, model ${agent.model}` : ""})`;
  const runtime = await runtimes.resolve(agent.codingAgent);
  const checks: RuntimeCheck[] = [];
  if (!runtime) {
    checks.push({
      ok: false,
      item: "runtime",
      detail: `no runtime "${agent.codingAgent}" (available: ${runtimes.ids().join(", ")})`,
    });
  } else if (runtime.doctor) {
    checks.push(
      ...(await runtime.doctor({
        agent: agent.name,
        model: agent.model,
        command: agent.command,
        env: agent.env,
        cwd: config.repoRoot,
      })),
    );
  }
  checks.push(...toolsCheck(agent), ...promptChecks(agent), ...reportCheck(agent));
  return { title, subject: `agents.${agent.name}`, checks };
}

function qualitySection(config: SssfConfig): Section | null {
  const suites = Object.values(config.quality);
  if (suites.length === 0) return null;
  const checks = suites.map((suite): RuntimeCheck => {
    const program = suite.command[0] ?? "";
    const found = findExecutable(program, { cwd: config.repoRoot, env: { ...process.env, ...suite.env } });
    return found === null
      ? {
          ok: false,
          item: suite.name,
          detail: `${program} not found (on PATH or relative to ${config.repoRoot})`,
        }
      : { ok: true, item: suite.name, detail: `${suite.command.join(" ")} (${found})` };
  });
  return { title: "quality suites", subject: "quality", checks };
}

/**
 * `sssf doctor`: for every agent, its runtime's checks (binary and version, model, API-key variable
 * names — never values), its prompts; then the quality suites' programs. Exit 1 with one line per
 * problem; a broken config is exit 2 as everywhere.
 */
export async function doctorCommand(options: { config?: string; cwd?: string }): Promise<number> {
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    const out = process.stdout;
    // Names, paths and what runtimes report (versions, CLI output) are shown, never acted on.
    const write = (text: string) => out.write(`${terminalSafe(text, { multiline: true })}\n`);
    write(`sssf doctor · config ${path.relative(cwd, config.file ?? "") || config.file}`);
    const sections = await Promise.all(config.agents.map((agent) => agentSection(config, agent)));
    const quality = qualitySection(config);
    if (quality) sections.push(quality);
    const problems: string[] = [];
    const warnings: string[] = [];
    for (const section of sections) {
      write(terminalSafe(section.title));
      const items = section.checks.map((check) => terminalSafe(check.item));
      const width = Math.max(...items.map((item) => item.length));
      section.checks.forEach((check, index) => {
        const mark = !check.ok
          ? paint(out, "red", "✘")
          : check.warning
            ? paint(out, "yellow", "!")
            : paint(out, "green", "✔");
        // The mark is painted after the text is made safe: sssf's own colour codes must survive.
        out.write(`  ${mark} ${(items[index] ?? "").padEnd(width)}  ${terminalSafe(check.detail)}\n`);
        const line = terminalSafe(`${section.subject}: ${check.item}: ${check.detail}`);
        if (!check.ok) problems.push(line);
        else if (check.warning) warnings.push(line);
      });
    }
    if (warnings.length > 0) {
      write(
        `${warnings.length} warning${warnings.length === 1 ? "" : "s"}:\n${warnings.map((w) => `  ${w}`).join("\n")}`,
      );
    }
    if (problems.length === 0) {
      write("no problems found");
      return 0;
    }
    write(
      `${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
    return 1;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}
