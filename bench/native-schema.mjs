// Door corrections saved by native structured output: the same malformed-then-valid scenario run
// through the engine with the real claude and codex CLIs against the fake model, once with the call's
// schema passed natively (claude --json-schema, codex --output-schema) and once with it withheld
// (a wrapper drops `outputSchema` from every send, as sssf did before). Counts are deterministic; the
// wall time is only a note.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { defineWorkflow, GenericOutput, loadConfig, runWorkflow } from "../dist/index.js";
import { claudeCodeRuntime } from "../dist/runtimes/claude-code/index.js";
import { codexRuntime } from "../dist/runtimes/codex/index.js";
import { createFakeModelServer, fakeModelEnv } from "../dist/testing/index.js";
import { root, scratch } from "./lib.mjs";

const VALID = {
  status: "success",
  summary: "valid on the second try",
  artifacts: [],
  notes_for_next_agent: "",
};
const MALFORMED = 'Done. {"status": "succ';
/** The door's JSON correction starts with this. */
const CORRECTION = "could not be accepted";

/**
 * Per runtime: its script (the model's first answer is malformed, its second valid) and how the run
 * is set up. A step's `reply` is what the model writes unconstrained; `structured` is its answer when
 * the request carries a native schema (docs/fake-model.md).
 */
const RUNTIMES = {
  claude_code: {
    runtime: claudeCodeRuntime,
    api: "anthropic",
    // claude's schema is a tool: the first structured answer is wrong too, and claude rejects it in its session.
    script: {
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          reply: MALFORMED,
          structured: { status: "succ" },
        },
        { match: { afterToolResult: true, nativeSchema: true }, structured: VALID },
        { match: { text: CORRECTION }, reply: JSON.stringify(VALID) },
      ],
    },
    setup(home) {
      mkdirSync(path.join(home, ".claude"), { recursive: true });
      writeFileSync(path.join(home, ".claude/settings.json"), "{}\n");
      return {
        command: [path.join(root, "node_modules/.bin/claude")],
        model: "",
        env: { CLAUDE_CODE_MAX_RETRIES: "0" },
      };
    },
  },
  codex: {
    runtime: codexRuntime,
    api: "openai-responses",
    // codex's schema is the Responses strict format: the endpoint holds the first answer to it.
    script: {
      steps: [
        { match: { text: "TURN-1" }, reply: MALFORMED, structured: VALID },
        { match: { text: CORRECTION }, reply: JSON.stringify(VALID) },
      ],
    },
    setup(home, url) {
      const codexHome = path.join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        path.join(codexHome, "config.toml"),
        [
          'model_provider = "fake"',
          "check_for_update_on_startup = false",
          "[model_providers.fake]",
          'name = "fake"',
          `base_url = "${url}/v1"`,
          'env_key = "FAKE_API_KEY"',
          'wire_api = "responses"',
          "request_max_retries = 0",
          "stream_max_retries = 0",
          "",
        ].join("\n"),
      );
      return {
        command: [path.join(root, "node_modules/.bin/codex")],
        model: "gpt-5.5",
        env: { CODEX_HOME: codexHome, FAKE_API_KEY: "sk-fake" },
      };
    },
  },
};

const workflow = defineWorkflow({
  name: "native-schema-bench",
  description: "one GenericOutput call",
  agents: ["agent"],
  async run(run, request) {
    await run.agent("answer", { owner: "agent", description: "answer once" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }),
    );
    return run.finish({ accepted: true, reason: "answered" });
  },
});

/** The runtime as it was before native schemas: the same CLI, the schema never passed. */
const withoutSchema = (runtime) => ({
  ...runtime,
  send: (request, observer) => runtime.send({ ...request, outputSchema: undefined }, observer),
});

async function scenario(id, native) {
  const spec = RUNTIMES[id];
  const { dir, cleanup } = scratch(`native-${id}`);
  const fake = await createFakeModelServer({ script: spec.script });
  try {
    const home = path.join(dir, "home");
    const work = path.join(dir, "work");
    mkdirSync(home, { recursive: true });
    const agent = spec.setup(home, fake.url);
    const prompts = path.join(work, "adws/adw_data/prompt_engineering/agent");
    mkdirSync(prompts, { recursive: true });
    writeFileSync(path.join(prompts, "system.md"), "You are a test agent. End with the JSON report.\n");
    writeFileSync(path.join(prompts, "user.md"), "{{prompt}}\n");
    mkdirSync(path.join(work, "adws/adw_sssf_config"), { recursive: true });
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      ...fakeModelEnv(fake.url),
      ...agent.env,
    };
    writeFileSync(
      path.join(work, "adws/adw_sssf_config/sssf.config.yaml"),
      JSON.stringify({
        agents: [{ name: "agent", coding_agent: id, model: agent.model, command: agent.command, env }],
      }),
    );
    const config = loadConfig({ cwd: work });
    const started = performance.now();
    const outcome = await runWorkflow({
      workflow,
      request: "TURN-1 report back",
      config,
      runtimes: [native ? spec.runtime : withoutSchema(spec.runtime)],
      inPlace: true,
    });
    const ms = performance.now() - started;
    const db = new DatabaseSync(config.dbPath, { readOnly: true });
    try {
      const count = (sql) => db.prepare(sql).get().n;
      // The runtime's per-send line says how many answers the CLI itself sent back (claude reports them).
      const nativeRetries = db
        .prepare("SELECT payload FROM events WHERE type = 'log'")
        .all()
        .map((row) => JSON.parse(row.payload))
        .filter((payload) => payload.native_schema === true)
        .reduce((sum, payload) => sum + (payload.rejected ?? 0), 0);
      return {
        accepted: outcome.exitCode === 0,
        corrections: count("SELECT COUNT(*) AS n FROM envelopes WHERE reason = 'json_fix'"),
        nativeRetries,
        sends: count("SELECT COUNT(*) AS n FROM envelopes"),
        requests: fake.requests().filter((entry) => entry.api === spec.api).length,
        ms,
      };
    } finally {
      db.close();
    }
  } finally {
    await fake.close();
    cleanup();
  }
}

export async function run() {
  const figures = [];
  for (const id of Object.keys(RUNTIMES)) {
    const without = await scenario(id, false);
    const withNative = await scenario(id, true);
    for (const [mode, result] of [
      ["without native schema", without],
      ["with native schema", withNative],
    ]) {
      if (!result.accepted) throw new Error(`${id} ${mode}: the run was not accepted`);
      figures.push(
        {
          label: `${id} ${mode}: door corrections (json_fix sends)`,
          value: result.corrections,
          unit: "corrections",
        },
        {
          label: `${id} ${mode}: answers the CLI rejected in its own session (as it reports them)`,
          value: result.nativeRetries,
          unit: "retries",
        },
        {
          label: `${id} ${mode}: CLI sends / model requests`,
          value: result.sends,
          unit: `sends / ${result.requests} requests`,
        },
        { label: `${id} ${mode}: wall time (note only)`, value: result.ms, unit: "ms" },
      );
    }
    figures.push({
      label: `${id}: door corrections saved`,
      value: without.corrections - withNative.corrections,
      unit: "corrections",
      target: "≥ 1",
    });
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${f.value} ${f.unit}`);
}
