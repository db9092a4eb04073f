// sssf's share of a realistic run: the built-in `plan-build-test` workflow, the planner and the builder
// the real pi CLI against sssf's fake model, each model turn taking 2 s (a fast real model), then the
// repository's own `node --test` and the commit. From the fake model's log, the time pi waited on the
// model (each request from its body read to its answer); the rest of the wall is sssf, the agent CLI's
// own start and work, the tests and git. From events.jsonl, the agent processes' lifetimes and the test
// suite's command time, so sssf's own part is the wall minus both. Rounds in one process, medians.
import { readFileSync } from "node:fs";
import path from "node:path";
import { median, piRepo, printFigures, scratch, sssf, startFakeModel } from "./lib.mjs";

const ROUNDS = Number(process.env.SSSF_BENCH_ROUNDS ?? 3);
const TURN_MS = Number(process.env.SSSF_BENCH_TURN_MS ?? 2000);
const PLAN = "matching `PlanOutput`";
const BUILD = "matching `BuildOutput`";
const REQUEST =
  "Add slugify(text) to src/slug.js: lowercase words joined by single dashes, none at either end.";

const PLAN_FILE = "specs/slugify.md";
const SPEC = `# Plan: slugify\n\n1. src/slug.js exports slugify(text).\n2. Lowercase words, joined by single dashes.\n3. No dash at either end.\n4. test/slug.test.js covers each rule.\n`;
const CODE = `export function slugify(text) {\n  return text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).join("-");\n}\n`;
const TESTS = `import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "../src/slug.js";

test("joins lowercase words with single dashes", () => assert.equal(slugify("Hello  World"), "hello-world"));
test("no dash at either end", () => assert.equal(slugify("  -Hi there- "), "hi-there"));
`;

const first = (text) => ({ text, hasTools: true, afterToolResult: false });
const then = (text) => ({ text, hasTools: true, afterToolResult: true });
const envelope = (fields) =>
  `Done.\n\n\`\`\`json\n${JSON.stringify({ status: "success", ...fields }, null, 2)}\n\`\`\``;

/** Every request pi makes in one run, each answered after `TURN_MS`. */
const script = {
  fallback: "error",
  steps: [
    { match: first(PLAN), writeFile: { path: PLAN_FILE, content: SPEC } },
    {
      match: then(PLAN),
      reply: envelope({
        summary: "Planned slugify in one file with its tests",
        artifacts: [PLAN_FILE],
        notes_for_next_agent: `Follow ${PLAN_FILE}.`,
        commit_message: "Add plan for slugify",
      }),
    },
    { match: first(BUILD), writeFile: { path: "src/slug.js", content: CODE } },
    { match: then(BUILD), writeFile: { path: "test/slug.test.js", content: TESTS } },
    {
      match: then(BUILD),
      reply: envelope({
        summary: "Added slugify and its tests",
        artifacts: [],
        changed_files: ["src/slug.js", "test/slug.test.js"],
        notes_for_next_agent: "Run node --test.",
        commit_message: "Add slugify",
      }),
    },
  ].map((step) => ({ ...step, delayMs: TURN_MS })),
};

const ms = (iso) => Date.parse(iso);

/** Total time covered by `[start, end]` intervals, overlaps counted once. */
function covered(intervals) {
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (end > reach) total += end - Math.max(start, reach);
    reach = Math.max(reach, end);
  }
  return total;
}

/** The run's events.jsonl records: the agent processes' lifetimes and the code phases' commands. */
function recordedSpans(repo, adwId) {
  const file = path.join(repo, "adws/adw_data/sessions", adwId, "events.jsonl");
  const records = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
  const spans = (table) =>
    records
      .filter((r) => r.table === table && r.row?.started_at && r.row?.ended_at)
      .map((r) => [ms(r.row.started_at), ms(r.row.ended_at)]);
  const suites = records
    .filter((r) => r.table === "steps" && r.row?.op === "suite")
    .map((r) => JSON.parse(r.row.result_json).duration_ms ?? 0);
  return { agents: covered(spans("processes")), suites: suites.reduce((sum, d) => sum + d, 0) };
}

/** One `sssf run plan-build-test` against the rewound fake; its wall, the model wait and the agents' time. */
async function oneRun(repo, fake) {
  fake.reset();
  const result = await sssf(repo, ["run", "plan-build-test", REQUEST, "--json"]);
  if (result.code !== 0) throw new Error(`realistic bench: the run failed: ${result.stderr.slice(-2000)}`);
  const { adw_id: adwId, accepted } = JSON.parse(result.stdout);
  if (accepted === false) throw new Error(`realistic bench: run ${adwId} not accepted: ${result.stdout}`);
  const turns = fake.requests().filter((r) => r.api !== null && r.status === 200);
  if (turns.length !== script.steps.length)
    throw new Error(`realistic bench: ${turns.length} model turns, expected ${script.steps.length}`);
  const model = covered(turns.map((r) => [ms(r.received), ms(r.time)]));
  const { agents, suites } = recordedSpans(repo, adwId);
  if (suites === 0) throw new Error(`realistic bench: run ${adwId} recorded no test suite run`);
  return { wall: result.wall, model, agents, suites, turns: turns.length };
}

export async function run() {
  const { dir, cleanup } = scratch("realistic");
  const fake = await startFakeModel(script);
  try {
    const repo = path.join(dir, "repo");
    await piRepo(repo, path.join(dir, "pi"), fake.url, {
      agents: ["planner", "builder"],
      files: {
        "package.json": `${JSON.stringify({ name: "app", type: "module", private: true }, null, 2)}\n`,
        "src/index.js": 'export const name = "app";\n',
        ".gitignore": "node_modules/\n",
      },
      config: { quality: { test: { command: [process.execPath, "--test"] } } },
    });
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await oneRun(repo, fake));
    const wall = median(rounds.map((r) => r.wall));
    const model = median(rounds.map((r) => r.model));
    const agents = median(rounds.map((r) => r.agents));
    const notModel = median(rounds.map((r) => (r.wall - r.model) / r.wall));
    const suites = median(rounds.map((r) => r.suites));
    const own = median(rounds.map((r) => (r.wall - r.agents - r.suites) / r.wall));
    const figure = (key, label, value, unit, target = "") => ({ key, label, value, unit, target });
    return [
      figure("rounds", "rounds", ROUNDS, ""),
      figure("model_turns", "model turns per run", rounds[0].turns, ""),
      figure("turn_ms", "each model turn takes", TURN_MS, "ms"),
      figure("wall_ms", "run wall, median", wall, "ms"),
      figure("model_wait_ms", "  waiting on the model, median", model, "ms"),
      figure("agent_process_ms", "  agent processes alive (pi, model wait included), median", agents, "ms"),
      figure("suite_ms", "  the test suite's command, median", suites, "ms"),
      figure(
        "sssf_ms",
        "  the rest: sssf (start, prompts, trace, worktree, gates, git), median",
        median(rounds.map((r) => r.wall - r.agents - r.suites)),
        "ms",
      ),
      figure(
        "not_model_share",
        "share of the wall not waiting on the model: (wall − model) ÷ wall, median",
        notModel,
        "share",
      ),
      figure(
        "sssf_share",
        "sssf's own share: (wall − agent processes − suite) ÷ wall, median",
        own,
        "share",
        "≤ 0.2",
      ),
    ];
  } finally {
    await fake.close();
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printFigures(await run());
