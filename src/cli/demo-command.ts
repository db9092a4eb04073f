import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../engine/config.js";
import { runWorkflow } from "../engine/run-workflow.js";
import { createScriptedAgent } from "../testing/scripted-agent-kit.js";
import { promptWorkflow } from "../workflows/prompt.js";
import { reportError } from "./report-error.js";
import { createTerminalReporter } from "./terminal-reporter.js";

const SYSTEM_PROMPT = `# Assistant

## Purpose
Answer the engineer's request inside this repository.

## Instructions
- Write files only where the request asks.
- End with the JSON report the user prompt asks for, and nothing else.
`;

const USER_PROMPT = `# Request

## Variables

### prompt

{{prompt}}

### context_handoff_dir

{{context_handoff_dir}}

## Task

Do what \`prompt\` asks, then emit your Report JSON.
`;

/** The embedded default: a first reply that forgets `status` (corrected in the same session), then a real write. */
const DEMO_TURNS = [
  {
    reply: 'Done! Here is my report: {"summary": "Wrote hello.md", "artifacts": ["hello.md"]}',
    tool_calls: [
      {
        tool: "write",
        args: { path: "hello.md" },
        write_file: { path: "hello.md", content: "# Hello, factory\n" },
        result: "wrote 17 bytes",
        duration_ms: 4,
      },
    ],
    usage: {
      input_tokens: 1200,
      output_tokens: 80,
      cache_read_tokens: 0,
      cache_write_tokens: 600,
      cost: 0.0048,
      context_tokens: 1280,
    },
  },
  {
    match: "status",
    reply:
      '```json\n{"status": "success", "summary": "Wrote hello.md greeting the factory", "artifacts": ["hello.md"], "notes_for_next_agent": "hello.md is at the repo root"}\n```',
    usage: {
      input_tokens: 1450,
      output_tokens: 60,
      cache_read_tokens: 1200,
      cache_write_tokens: 0,
      cost: 0.0021,
      context_tokens: 1510,
    },
  },
];

function writeDemoRepo(dir: string): void {
  mkdirSync(path.join(dir, "adws/adw_sssf_config"), { recursive: true });
  mkdirSync(path.join(dir, "adws/adw_data/prompt_engineering/assistant"), { recursive: true });
  writeFileSync(path.join(dir, "README.md"), "# Demo repo\n\nA scratch repository created by `sssf demo`.\n");
  writeFileSync(path.join(dir, "adws/adw_data/prompt_engineering/assistant/system.md"), SYSTEM_PROMPT);
  writeFileSync(path.join(dir, "adws/adw_data/prompt_engineering/assistant/user.md"), USER_PROMPT);
  // The script lives in the data dir: sssf's own area, never a phase's change, never committed.
  const agent = createScriptedAgent({
    dir: path.join(dir, "adws/adw_data/demo-agent"),
    name: "assistant",
    turns: DEMO_TURNS,
  });
  const yaml = [
    "# yaml-language-server: $schema=../../node_modules/sssf/schema/sssf.config.schema.json",
    "agents:",
    "  - name: assistant",
    "    purpose: Answers one request in this repo",
    "    coding_agent: exec",
    `    command: ${JSON.stringify(agent.command)}`,
    "    writes: ['**']",
    "",
  ].join("\n");
  writeFileSync(path.join(dir, "adws/adw_sssf_config/sssf.config.yaml"), yaml);
}

/**
 * `sssf demo`: a real `prompt` run against the bundled scripted exec agent in a scratch repo — the
 * whole path (prompts, same-session JSON correction, tool call, envelope, trace) with no model key.
 */
export async function demoCommand(options: { dir?: string }): Promise<number> {
  try {
    const dir = options.dir ? path.resolve(options.dir) : mkdtempSync(path.join(tmpdir(), "sssf-demo-"));
    mkdirSync(dir, { recursive: true });
    writeDemoRepo(dir);
    const config = loadConfig({ cwd: dir });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "Write hello.md greeting the factory",
      config,
      reporter: createTerminalReporter(process.stdout, dir),
    });
    // The command that ran this demo, so the hint works whether sssf is installed or run from a clone.
    const script = process.argv[1] ?? "sssf";
    const relative = path.relative(process.cwd(), script);
    const sssf = `node ${relative.startsWith("..") ? script : relative}`;
    process.stdout.write(
      `\nscratch repo: ${dir}\n` +
        `session files: ${outcome.sessionDir}\n` +
        `trace database: ${config.dbPath}\n` +
        `inspect it: ${sssf} phases ${outcome.adwId} --cwd ${dir}\n` +
        `            ${sssf} envelopes ${outcome.adwId} --cwd ${dir}\n`,
    );
    return outcome.exitCode;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}
