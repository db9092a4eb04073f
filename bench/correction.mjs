// What a correction in the same session saves over a cold restart, seen from the model's side.
// One agent phase, run by the real pi CLI against sssf's fake model, needs two corrections: its first
// final reply is not a JSON envelope (a `json_fix`), and its first envelope claims a file it did not
// write (the `artifactsExist` gate fails: a `gate_fix`). sssf corrects both in the same session.
// The alternative is a cold restart: on each failure the phase starts again in a fresh session with
// the original prompt and redoes the work (here: the same workflow with `json_fix_attempts: 0` and
// `retries: 0`, run again by `sssf run` until it passes, each run a new worktree from the base commit).
// The model makes the same mistakes at the same points in both. From the fake model's request log:
// requests, request bytes, and per request the share of its bytes that repeats the previous request's
// bytes as a prefix (what a provider's prompt cache would reuse).
import { readFileSync } from "node:fs";
import path from "node:path";
import { median, piRepo, printFigures, root, scratch, sssf, startFakeModel } from "./lib.mjs";

/** A marker of the task's prompt that no correction message repeats. */
const MARK = "BENCH-TASK-7";
const REQUEST = `${MARK}: read docs/guide.md, write a summary of it to WORK.md and a list of its risks to NOTES.md.`;
const JSON_FIX = "Your reply could not be accepted";
const GATE_FIX = "Gate `artifactsExist` failed";
// The file the agent reads: the head of sssf's README, a tool result of realistic size.
const GUIDE = readFileSync(path.join(root, "README.md"), "utf8").slice(0, 24_000);

const WORKFLOW = `import { defineWorkflow, GenericOutput, gates } from "sssf";
export default defineWorkflow({
  name: "one", description: "bench: one agent phase whose artifacts must exist", agents: ["builder"],
  async run(run, request) {
    await run.agent("work", { owner: "builder", description: "do the task" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request, gates: [gates.artifactsExist] }));
    return run.finish({ accepted: true, reason: "ok" });
  },
});
`;

const first = (text) => ({ text, hasTools: true, afterToolResult: false });
const then = (text) => ({ text, hasTools: true, afterToolResult: true });
const envelope = (artifacts) =>
  `Done.\n\n\`\`\`json\n${JSON.stringify(
    {
      status: "success",
      summary: "Summarised docs/guide.md and listed its risks",
      artifacts,
      notes_for_next_agent: "WORK.md has the summary, NOTES.md the risks.",
    },
    null,
    2,
  )}\n\`\`\``;
const SUMMARY = `# docs/guide.md\n\n${"sssf runs a workflow's phases in order and records each in the trace. ".repeat(20)}\n`;
const RISKS = `# Risks\n\n${"- a phase that never ends holds the run until its timeout.\n".repeat(15)}`;

const read = { match: first(MARK), tool: { name: "read", args: { path: "docs/guide.md" } } };
const writeWork = { match: then(MARK), writeFile: { path: "WORK.md", content: SUMMARY } };
const writeNotes = (match) => ({ match, writeFile: { path: "NOTES.md", content: RISKS } });
/** The first final reply: prose, no envelope. */
const prose = { match: then(MARK), reply: "I wrote the summary to WORK.md and the risks to NOTES.md." };
/** The envelope, claiming both files: a gate failure while NOTES.md is not written yet. */
const claims = (match) => ({ match, reply: envelope(["WORK.md", "NOTES.md"]) });

/** sssf's way: both mistakes corrected in the one session. */
const correctionScript = {
  fallback: "error",
  steps: [
    read,
    writeWork,
    prose,
    claims(first(JSON_FIX)),
    writeNotes(first(GATE_FIX)),
    claims(then(GATE_FIX)),
  ],
};

/** The cold restart: three fresh sessions with the original prompt, each redoing the work. */
const restartScript = {
  fallback: "error",
  steps: [
    ...[read, read, read],
    writeWork,
    prose, // run 1 fails: no envelope
    writeWork,
    claims(then(MARK)), // run 2 fails: NOTES.md missing
    writeWork,
    writeNotes(then(MARK)),
    claims(then(MARK)), // run 3 passes
  ],
};

/** Bytes `a` and `b` share from their start. */
function commonPrefix(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * The provider's view of a strategy's requests: count, bytes, and the bytes each repeats of the one
 * before it as a prefix (the first request repeats nothing). The log keeps the parsed body; pi sends
 * compact JSON, so re-serialising gives its bytes back, checked against the logged size.
 */
function providerView(requests) {
  const generations = requests.filter((r) => r.api !== null && r.status === 200);
  let previous = Buffer.alloc(0);
  const bytes = [];
  const shares = [];
  let repeated = 0;
  let mismatched = 0;
  // The prompt as a provider renders it: tools first, then the messages (pi's body puts tools last).
  let previousPrompt = Buffer.alloc(0);
  let promptRepeated = 0;
  let promptTotal = 0;
  for (const request of generations) {
    const body = Buffer.from(JSON.stringify(request.body));
    if (body.length !== request.bytes) mismatched++;
    const prefix = commonPrefix(previous, body);
    bytes.push(request.bytes);
    shares.push(prefix / body.length);
    repeated += prefix;
    previous = body;
    const prompt = Buffer.from(JSON.stringify([request.body.tools ?? [], request.body.messages ?? []]));
    promptRepeated += commonPrefix(previousPrompt, prompt);
    promptTotal += prompt.length;
    previousPrompt = prompt;
  }
  const total = bytes.reduce((sum, b) => sum + b, 0);
  return {
    requests: generations.length,
    bytes: total,
    medianBytes: median(bytes),
    prefixShare: repeated / total,
    medianPrefixShare: median(shares),
    uncached: total - repeated,
    promptPrefixShare: promptRepeated / promptTotal,
    mismatched,
  };
}

/** Runs one strategy in its own repo against its own fake model; resolves with the fake's log and the runs. */
async function strategy(dir, name, script, limits, attempts) {
  const fake = await startFakeModel(script);
  try {
    const repo = path.join(dir, name);
    await piRepo(repo, path.join(dir, `${name}-pi`), fake.url, {
      agents: ["builder"],
      files: { "docs/guide.md": GUIDE, "adws/adw_one.ts": WORKFLOW },
      config: { limits },
    });
    const runs = [];
    let last;
    for (let attempt = 0; attempt < attempts && last?.code !== 0; attempt++) {
      last = await sssf(repo, ["run", "one", REQUEST]);
      runs.push(last.code);
    }
    if (last?.code !== 0)
      throw new Error(
        `correction bench: ${name} did not pass in ${attempts} run(s): ${last?.stderr.slice(-2000)} ${last?.stdout.slice(-3000)}`,
      );
    return { view: providerView(fake.requests()), runs: runs.length };
  } finally {
    await fake.close();
  }
}

export async function run() {
  const { dir, cleanup } = scratch("correction");
  try {
    const same = await strategy(dir, "correction", correctionScript, {}, 1);
    const cold = await strategy(dir, "restart", restartScript, { json_fix_attempts: 0, retries: 0 }, 3);
    if (same.runs !== 1 || cold.runs !== 3)
      throw new Error(`correction bench: expected 1 and 3 runs, got ${same.runs} and ${cold.runs}`);
    const c = same.view;
    const r = cold.view;
    if (c.mismatched + r.mismatched > 0)
      process.stderr.write(
        `correction bench: ${c.mismatched + r.mismatched} bodies re-serialised to other bytes\n`,
      );
    const figure = (key, label, value, unit) => ({ key, label, value, unit, target: "" });
    return [
      figure("correction_requests", "same-session correction: model requests", c.requests, ""),
      figure("restart_requests", "cold restart (3 sessions): model requests", r.requests, ""),
      figure("requests_ratio", "  requests, correction ÷ restart", c.requests / r.requests, "×"),
      figure("correction_bytes", "same-session correction: request bytes, total", c.bytes, "B"),
      figure("restart_bytes", "cold restart: request bytes, total", r.bytes, "B"),
      figure("bytes_ratio", "  request bytes, correction ÷ restart", c.bytes / r.bytes, "×"),
      figure(
        "correction_median_request_bytes",
        "same-session correction: bytes per request, median",
        c.medianBytes,
        "B",
      ),
      figure("restart_median_request_bytes", "cold restart: bytes per request, median", r.medianBytes, "B"),
      figure(
        "correction_prefix_share",
        "same-session correction: bytes repeating the previous request's prefix",
        c.prefixShare,
        "share",
      ),
      figure(
        "restart_prefix_share",
        "cold restart: bytes repeating the previous request's prefix",
        r.prefixShare,
        "share",
      ),
      figure(
        "correction_median_prefix_share",
        "same-session correction: prefix share per request, median",
        c.medianPrefixShare,
        "share",
      ),
      figure(
        "restart_median_prefix_share",
        "cold restart: prefix share per request, median",
        r.medianPrefixShare,
        "share",
      ),
      figure(
        "correction_uncached_bytes",
        "same-session correction: bytes no prompt cache covers",
        c.uncached,
        "B",
      ),
      figure("restart_uncached_bytes", "cold restart: bytes no prompt cache covers", r.uncached, "B"),
      figure("uncached_bytes_ratio", "  uncached bytes, correction ÷ restart", c.uncached / r.uncached, "×"),
      figure(
        "correction_prompt_prefix_share",
        "same-session correction: prefix share, tools then messages",
        c.promptPrefixShare,
        "share",
      ),
      figure(
        "restart_prompt_prefix_share",
        "cold restart: prefix share, tools then messages",
        r.promptPrefixShare,
        "share",
      ),
    ];
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printFigures(await run());
