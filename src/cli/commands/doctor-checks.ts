/**
 * What `sssf doctor` checks, as data: one section per agent (its runtime's checks, tools, prompts, a
 * misleading hand-written Report) and one for the quality suites, found or (with `--run-suites`) run
 * once in the checkout. `doctor-command.ts` prints them as text or JSON.
 */

import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { suggestToolName } from "../../config/config-tools.js";
import type { AgentConfig, SssfConfig } from "../../config/config-types.js";
import { runSuiteAt } from "../../engine/code-support.js";
import { findTemplateReport } from "../../envelope/report-placement.js";
import type { RuntimeCheck } from "../../runtimes/runtime.js";
import { isToolName } from "../../runtimes/tool-names.js";
import { findExecutable } from "../../util/find-executable.js";
import { runtimes } from "../builtin-plugins.js";
import { sandboxChecks } from "./doctor-sandbox.js";

/** A check of a quality suite that `--run-suites` ran: how it ended. */
export interface SuiteCheck extends RuntimeCheck {
  suite: { passed: boolean; exitCode: number | null; durationMs: number; lastLines: string[] };
}

/** Lines of a suite's output `sssf doctor --run-suites` shows. */
export const SUITE_LAST_LINES = 10;

/** One block of `sssf doctor`: an agent, or the quality suites. */
export interface Section {
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

/** An agent's checks: its runtime's own (binary, version, model, key variables), tools, prompts. */
export async function agentSection(config: SssfConfig, agent: AgentConfig): Promise<Section> {
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
  checks.push(...sandboxChecks(agent), ...toolsCheck(agent), ...promptChecks(agent), ...reportCheck(agent));
  return { title, subject: `agents.${agent.name}`, checks };
}

/**
 * The quality suites: each one's program looked up, and with `runSuites` the suite run once in the
 * checkout (in order, one at a time), passed or failed with its exit code and last lines. A suite
 * only found says so: "found, not run". Null when the config has none.
 */
export async function qualitySection(
  config: SssfConfig,
  runSuites: boolean,
  signal?: AbortSignal,
): Promise<Section | null> {
  const suites = Object.values(config.quality);
  if (suites.length === 0) return null;
  const checks: RuntimeCheck[] = [];
  for (const suite of suites) {
    const program = suite.command[0] ?? "";
    const found = findExecutable(program, { cwd: config.repoRoot, env: { ...process.env, ...suite.env } });
    const command = suite.command.join(" ");
    if (found === null) {
      checks.push({
        ok: false,
        item: suite.name,
        detail: `${program} not found (on PATH or relative to ${config.repoRoot})`,
      });
      continue;
    }
    if (!runSuites) {
      checks.push({
        ok: true,
        item: suite.name,
        detail: `${command} (${found}): found, not run (sssf doctor --run-suites runs it)`,
      });
      continue;
    }
    const result = await runSuiteAt(config, suite.name, config.repoRoot, { signal });
    const lastLines = result.outputTail === "" ? [] : result.outputTail.split("\n").slice(-SUITE_LAST_LINES);
    const ended = `exit ${result.exitCode ?? "none"}`;
    const check: SuiteCheck = {
      ok: result.passed,
      item: suite.name,
      detail: result.passed ? `${command}: passed (${ended})` : `${command}: failed (${ended})`,
      suite: { passed: result.passed, exitCode: result.exitCode, durationMs: result.durationMs, lastLines },
    };
    checks.push(check);
  }
  return { title: "quality suites", subject: "quality", checks };
}
