// Redaction on a realistic event stream: 10,000 trace records (tool calls whose results are 20 to 1,800
// characters of sssf's own sources and docs, their names, agent text lines) through redactSecrets and
// redactJsonText, as the tracer redacts every record, run in rounds; the figure is the median round.
// SSSF_REDACTION_DIR points at another copy of src/util/secrets (e.g. an older one, written out with
// `git show <rev>:src/util/secrets/<file>`), measured in the same process, interleaved, for a ratio.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import { percentile, root } from "./lib.mjs";

const ROUNDS = 12;
const FILES = [
  "src/engine/send/send-to-agent.ts",
  "src/trace/tracer.ts",
  "docs/trace.md",
  "src/runtimes/send-loop/line-splitter.ts",
  "README.md",
  "package.json",
];

async function load(dir) {
  const url = (file) => pathToFileURL(path.resolve(root, dir, file)).href;
  const text = await tsImport(url("redact.ts"), import.meta.url);
  const json = await tsImport(url("redact-json.ts"), import.meta.url);
  return { redactSecrets: text.redactSecrets, redactJsonText: json.redactJsonText };
}

function stream() {
  const sources = FILES.map((file) => readFileSync(path.join(root, file), "utf8"));
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const events = [];
  for (let i = 0; i < 5000; i++) {
    const source = sources[Math.floor(next() * sources.length)];
    const at = Math.floor(next() * source.length);
    const length = Math.floor(next() * 1800) + 20;
    const chunk = source.slice(at, at + length);
    const command = `sed -n ${at},${at + length}p ${FILES[i % FILES.length]}`;
    events.push({
      name: `bash: ${command}`,
      payload: JSON.stringify({ tool: "bash", args: { command }, result: chunk }),
    });
    events.push({ name: chunk.slice(0, 100), payload: JSON.stringify({ text: chunk.slice(0, 120) }) });
  }
  return events;
}

function round(redaction, events) {
  const started = performance.now();
  for (const event of events) {
    redaction.redactSecrets(event.name);
    redaction.redactJsonText(event.payload);
  }
  return performance.now() - started;
}

export async function run() {
  const events = stream();
  const current = await load("src/util/secrets");
  const other = process.env.SSSF_REDACTION_DIR ? await load(process.env.SSSF_REDACTION_DIR) : null;
  const mine = [];
  const theirs = [];
  for (let i = 0; i < ROUNDS; i++) {
    mine.push(round(current, events));
    if (other !== null) theirs.push(round(other, events));
  }
  const perEvent = (rounds) => (percentile(rounds, 50) * 1000) / events.length;
  const figures = [{ label: `per record (${events.length} records)`, value: perEvent(mine), unit: "µs" }];
  if (other !== null) {
    figures.push({
      label: `per record, ${process.env.SSSF_REDACTION_DIR}`,
      value: perEvent(theirs),
      unit: "µs",
    });
    figures.push({ label: "this ÷ that", value: percentile(mine, 50) / percentile(theirs, 50), unit: "×" });
  }
  return figures;
}
