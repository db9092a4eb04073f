import type { Command } from "commander";
import { sssfInvocation } from "../../demo/demo-hints.js";
import { DEMO_MODEL } from "../../demo/demo-pi.js";
import { DEMO_REQUEST } from "../../demo/demo-story-files.js";
import { type DemoOutcome, demoDataDir, runDemo } from "../../demo/run-demo.js";
import type { PhaseRow } from "../../trace/events.js";
import { displayTraceLocation } from "../../trace/trace-location.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { defaultAgents } from "../../workflows/prompts/default-prompts.js";
import { formatCost, formatDuration, formatTokens, table } from "../format.js";
import { renderInitConfig } from "../init/init-config.js";
import { GITIGNORE_LINES } from "../init/init-files.js";
import { interruptOnSignals } from "../interrupt-signals.js";
import { createTerminalReporter } from "../report/terminal-reporter.js";
import { reportError } from "../report-error.js";

/** `sssf demo` flags, plus what main.ts knows about the build. */
export interface DemoCommandOptions {
  dir?: string;
  /** Whether this build registers `sssf ui` (main.ts knows; the hint is printed only then). */
  ui?: boolean;
}

/** One or more lines of the summary: paths, commit subjects and pi's version are shown, never acted on. */
const write = (text = "") => process.stdout.write(`${terminalSafe(text, { multiline: true })}\n`);

/** The config `sssf init --coding-agent pi --model fake/fake-model` would write, with the demo's suite. */
function initFiles() {
  const config = renderInitConfig({
    codingAgent: "pi",
    model: DEMO_MODEL,
    agents: defaultAgents(),
    // node --test directly (not npm test): the same runner, without an npm process per run.
    suites: [{ name: "test", command: ["node", "--test"], source: "package.json" }],
  });
  return { config, gitignore: GITIGNORE_LINES };
}

function phaseTable(phases: readonly PhaseRow[]): string {
  const rows = phases.map((phase) => {
    const spent = phase.input_tokens + phase.output_tokens > 0;
    return [
      `${String(phase.number).padStart(2, "0")} ${phase.name}`,
      phase.status,
      formatDuration(phase.duration_ms),
      spent ? `${formatTokens(phase.input_tokens)} / ${formatTokens(phase.output_tokens)}` : "-",
      spent ? formatCost(phase.cost_usd) : "-",
    ];
  });
  return table(["phase", "status", "duration", "tokens in / out", "cost"], rows);
}

function printSummary(demo: DemoOutcome, ui: boolean): void {
  const { run, config, dir } = demo;
  const indent = (text: string) => text.replace(/^/gm, "  ");
  write();
  write(indent(phaseTable(run.phases)));
  write();
  write(`commits (git log --oneline ${demo.base.slice(0, 12)}..${demo.tip}):`);
  if (demo.commits.length === 0) write("  (none)");
  for (const commit of demo.commits) write(`  ${commit.sha} ${commit.subject}  [${commit.files.join(", ")}]`);
  write();
  write(`scratch repo    ${dir}`);
  if (run.session.worktree) write(`run's worktree  ${run.session.worktree} (branch ${run.session.branch})`);
  write(`session files   ${run.sessionDir}`);
  write(`trace database  ${displayTraceLocation(config.dbPath)}`);
  write(`pi's own dir    ${demoDataDir(config)} (agent dir, HOME; your ~/.pi is not used)`);
  const egress =
    demo.egress === 0 ? "no attempt to leave the machine" : `${demo.egress} REFUSED egress attempts`;
  write(`fake model      ${demo.modelRequests} model requests, ${egress} (log ${demo.fakeLog})`);
  const sssf = sssfInvocation();
  write();
  write("open the trace:");
  write(`  ${sssf} phases ${run.adwId} --cwd ${dir}`);
  write(`  ${sssf} envelopes ${run.adwId} --cwd ${dir}`);
  write(`  ${sssf} events ${run.adwId} --type tool_call --cwd ${dir}`);
  if (ui) write(`  ${sssf} ui --cwd ${dir}`);
}

/**
 * `sssf demo`: `simple-sdlc` through the real pi CLI against the bundled fake model, in a scratch repo,
 * then a phase table, the run's commits, where the trace is and how to open it. No model key, no
 * network. Returns the run's exit code (2 when nothing could start: a non-empty `--dir`, no pi).
 */
export async function demoCommand(options: DemoCommandOptions): Promise<number> {
  const interrupt = interruptOnSignals();
  try {
    const demo = await runDemo({
      dir: options.dir,
      init: initFiles(),
      reporter: (dir) => createTerminalReporter(process.stdout, dir, { mode: "plain" }),
      signal: interrupt.signal,
      onReady({ dir, pi, fakeUrl }) {
        const where = `${pi.location}${pi.source === "PATH" ? " (found on PATH)" : ""}`;
        write(`sssf demo · scratch repo ${dir}`);
        write(`  agents   the real pi CLI ${pi.version ?? "(version unknown)"} from ${where}`);
        write(`  model    ${DEMO_MODEL}: sssf's scripted fake model server at ${fakeUrl}`);
        write(`  request  ${DEMO_REQUEST}`);
        write();
      },
    });
    printSummary(demo, options.ui === true);
    return demo.run.exitCode;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  } finally {
    interrupt.dispose();
  }
}

/** `sssf demo`. */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description("run simple-sdlc in a scratch repo through the real pi CLI against the bundled fake model")
    .option("--dir <dir>", "where to create the scratch repo: empty or absent (default: a new temp folder)")
    .action(async (options) => {
      // The trace hints name `sssf ui` only when this build has it.
      const ui = program.commands.some((command) => command.name() === "ui");
      process.exitCode = await demoCommand({ ...options, ui });
    });
}
