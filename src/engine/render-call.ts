import { readFileSync } from "node:fs";
import type { CallOptions } from "../api/run-api.js";
import type { OutputType } from "../envelope/output-type.js";
import { findTemplateReport, staleReportTypes, type TemplateReport } from "../envelope/report-placement.js";
import type { CallContext } from "./call-context.js";
import type { CallContract } from "./call-contract.js";
import { renderPrompt } from "./prompts.js";

/** The system and user prompts of a call's first send. */
export interface RenderedCall {
  system: string;
  user: string;
}

/**
 * Renders `system.md` and `user.md` in one pass (a value that contains `{{…}}` is never expanded
 * again). The output contract reaching the agent is always the call's own: a `## Report` section in
 * `user.md` is replaced by the one generated from the call's type (a hand-written one that names
 * another type is a warning in the trace), and a `user.md` with neither a `## Report` section nor
 * `{{output_schema}}` gets it appended.
 */
export function renderCall<T extends OutputType>(
  context: CallContext,
  options: CallOptions<T>,
  contract: CallContract<T>,
  previous: object | null,
): RenderedCall {
  const { run, agent } = context;
  const values = {
    prompt: options.prompt,
    previous_envelope: previous === null ? "(none)" : JSON.stringify(previous, null, 2),
    context_handoff_dir: agent.sandbox.boxed ? agent.sandbox.boxContextHandoffDir : run.contextHandoffDir,
    adw_id: run.adwId,
    output_schema: contract.outputSchema,
  };
  const systemTemplate = readFileSync(agent.config.systemPromptPath, "utf8");
  const userTemplate = options.userTemplate ?? readFileSync(agent.config.userPromptPath, "utf8");
  const report = findTemplateReport(userTemplate);
  let user: string;
  if (report) {
    warnIfStale(context, report, options.outputType.name);
    // The parts are rendered apart, so a request that contains "## Report" is never taken for the section.
    const after = renderPrompt(report.after, values);
    user = `${renderPrompt(report.before, values)}${contract.reportSection}\n${after === "" ? "" : `\n${after.replace(/^\n+/, "")}`}`;
  } else {
    user = renderPrompt(userTemplate, values);
    if (!userTemplate.includes("{{output_schema}}"))
      user = `${user.trimEnd()}\n\n${contract.reportSection}\n`;
  }
  return { system: renderPrompt(systemTemplate, values), user };
}

/** A hand-written Report naming another type: the call replaces it, and the trace says so. */
function warnIfStale({ run, agent, phase }: CallContext, report: TemplateReport, typeName: string): void {
  const stale = staleReportTypes(report, typeName);
  if (stale.length === 0) return;
  const message = `${agent.config.name}'s user.md has a hand-written ## Report naming ${stale.join(", ")}; this ${typeName} call gets its own contract in its place`;
  run.trace.event({
    type: "log",
    name: message,
    phaseId: phase.row.id,
    agent: agent.config.name,
    ok: false,
    payload: {
      warning: "stale_report",
      file: agent.config.userPromptPath,
      named: stale,
      output_type: typeName,
      shown: [`! ${message}`],
    },
  });
  run.reporter.log(`! ${message}`, phase.row);
}
