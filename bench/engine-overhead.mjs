// Engine overhead per agent phase: an in-process agent that answers instantly, so every millisecond
// measured is sssf's own (prompt rendering and saving, parsing, agent map, trace writes to events.jsonl
// and SQLite, envelope.json).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  BUILTIN_RUNTIME_IDS,
  defineWorkflow,
  GenericOutput,
  loadConfig,
  runWorkflow,
} from "../dist/index.js";
import { fmt, median, percentile, scratch } from "./lib.mjs";

const PHASES = 400;

const instantRuntime = {
  id: "instant",
  specVersion: "sssf-runtime/1",
  async send() {
    return {
      ok: true,
      text: '{"status": "success", "summary": "done", "artifacts": []}',
      usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0001 },
      contextTokens: 110,
    };
  },
};

export async function run() {
  const { dir, cleanup } = scratch("engine");
  try {
    mkdirSync(path.join(dir, "adws/adw_sssf_config"), { recursive: true });
    mkdirSync(path.join(dir, "adws/adw_data/prompt_engineering/fast"), { recursive: true });
    writeFileSync(
      path.join(dir, "adws/adw_data/prompt_engineering/fast/system.md"),
      "You are fast. {{adw_id}}\n",
    );
    writeFileSync(
      path.join(dir, "adws/adw_data/prompt_engineering/fast/user.md"),
      "# Task\n\n{{prompt}}\n\n{{previous_envelope}}\n",
    );
    writeFileSync(
      path.join(dir, "adws/adw_sssf_config/sssf.config.yaml"),
      "agents:\n  - name: fast\n    coding_agent: instant\n",
    );
    const config = loadConfig({ cwd: dir, knownRuntimes: [...BUILTIN_RUNTIME_IDS, "instant"] });
    const times = [];
    const workflow = defineWorkflow({
      name: "bench",
      description: "many instant agent phases",
      agents: ["fast"],
      async run(runHandle, request) {
        for (let i = 0; i < PHASES; i++) {
          const started = performance.now();
          await runHandle.agent(`phase-${i}`, { owner: "fast", description: "instant" }, (phase) =>
            phase.call({ outputType: GenericOutput, prompt: request }),
          );
          times.push(performance.now() - started);
        }
        return runHandle.finish({ accepted: true });
      },
    });
    const started = performance.now();
    const outcome = await runWorkflow({ workflow, request: "go", config, runtimes: [instantRuntime] });
    const total = performance.now() - started;
    if (!outcome.accepted) throw new Error(`bench run failed: ${outcome.reason}`);
    const warm = times.slice(20);
    return [
      { label: "engine overhead per agent phase, median", value: median(warm), unit: "ms", target: "≤ 2" },
      { label: "engine overhead per agent phase, p95", value: percentile(warm, 95), unit: "ms", target: "" },
      {
        label: `whole run of ${PHASES} phases (incl. session setup and finalize)`,
        value: total,
        unit: "ms",
        target: "",
      },
    ];
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
