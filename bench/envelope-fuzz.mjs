// Envelope extraction under fuzzing: replies of every class (a valid, schema-invalid, cut-off,
// control-character, JS-style, Python-dict or key-repeating final report, or none, amid prose, quoted
// examples and templates whose status may disagree, stray braces, dicts, many keys, escaped keys and
// unicode; test/envelope/envelope-replies.ts) through the built
// parseEnvelope, each judged against the generator's truth, and each parse timed; every 50th reply is
// also parsed behind 64 KiB of log lines (braces, quotes, JSON log records) to time a long reply.
// SSSF_FUZZ_REPLIES sets the count (default 100,000); SSSF_ENVELOPE_PARSER points at another module
// exporting parseEnvelope (a .ts file is loaded through tsx), to measure an older extractor.
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { tsImport } from "tsx/esm/api";
import { percentile, root } from "./lib.mjs";

const REPLIES = Number(process.env.SSSF_FUZZ_REPLIES ?? 100_000);
const WARMUP = 2_000;
const BATCH = 5_000;
const SEED = 20_261_201;
const PADDED_EVERY = 50;
const LOG_LINE = 'log line with {braces} and "quotes" it\'s {"level": "info"} more words\n';
const PADDING = LOG_LINE.repeat(Math.ceil((64 * 1024) / LOG_LINE.length));

/** The generator's rule for when a valid final report may be accepted (set by run()). */
let reportsAgree = () => true;

async function load(file) {
  const url = pathToFileURL(path.resolve(root, file)).href;
  return file.endsWith(".ts") ? tsImport(url, import.meta.url) : import(url);
}

/**
 * True when the parser accepted exactly the agent's valid final report (byte for byte when it says
 * where), and no other report of the reply disagreed on its status.
 */
function acceptedRightly(reply, found) {
  if (reply.finalKind !== "valid" || !reportsAgree(reply)) return false;
  if (typeof found.start === "number") return reply.text.slice(found.start, found.end) === reply.finalText;
  return JSON.stringify(found.json) === JSON.stringify(JSON.parse(reply.finalText));
}

export async function run() {
  const parser = await load(process.env.SSSF_ENVELOPE_PARSER ?? "dist/envelope/parse-envelope.js");
  const parse = parser.locateEnvelope ?? parser.parseEnvelope;
  const { GenericOutput } = await import("../dist/envelope/schemas.js");
  const {
    FINAL_KINDS,
    replyArbitrary,
    reportsAgree: agree,
  } = await load("test/envelope/envelope-replies.ts");
  reportsAgree = agree;

  for (const reply of fc.sample(replyArbitrary, { seed: SEED - 1, numRuns: WARMUP })) {
    parse(reply.text, GenericOutput);
  }
  const times = [];
  const paddedTimes = [];
  const wrongByKind = new Map(FINAL_KINDS.map((kind) => [kind, 0]));
  let wrongAccepts = 0;
  let otherStatus = 0;
  let falseRejects = 0;
  let bytes = 0;
  for (let batch = 0; batch * BATCH < REPLIES; batch++) {
    const count = Math.min(BATCH, REPLIES - batch * BATCH);
    for (const reply of fc.sample(replyArbitrary, { seed: SEED + batch, numRuns: count })) {
      const started = performance.now();
      const found = parse(reply.text, GenericOutput);
      times.push((performance.now() - started) * 1000);
      bytes += reply.text.length;
      if (found.ok && !acceptedRightly(reply, found)) {
        wrongAccepts++;
        wrongByKind.set(reply.finalKind, wrongByKind.get(reply.finalKind) + 1);
        if (
          found.envelope.status !== reply.writtenStatus ||
          reply.otherStatuses.some((stated) => stated !== found.envelope.status)
        )
          otherStatus++;
      }
      if (reply.finalKind === "valid" && reportsAgree(reply) && !found.ok) falseRejects++;
      if (times.length % PADDED_EVERY === 0) {
        const padded = PADDING + reply.text;
        const paddedStarted = performance.now();
        const paddedFound = parse(padded, GenericOutput);
        paddedTimes.push((performance.now() - paddedStarted) * 1000);
        if (paddedFound.ok !== found.ok)
          throw new Error(`64 KiB of log lines changed the verdict on ${reply.text}`);
      }
    }
  }
  const count = { unit: "replies" };
  return [
    { label: "replies tried", value: times.length, ...count, target: "" },
    { label: "mean reply length", value: bytes / times.length, unit: "characters", target: "" },
    { label: "wrong accepts", value: wrongAccepts, ...count, target: "0" },
    ...FINAL_KINDS.map((kind) => ({
      label: `  of which the final report was ${kind}`,
      value: wrongByKind.get(kind),
      ...count,
      target: "",
    })),
    {
      label: "  of which with a status the final report or another report contradicts",
      value: otherStatus,
      ...count,
      target: "0",
    },
    {
      label: "false rejects (a valid final report not accepted)",
      value: falseRejects,
      ...count,
      target: "0",
    },
    { label: "parse time p50", value: percentile(times, 50), unit: "µs", target: "" },
    { label: "parse time p99", value: percentile(times, 99), unit: "µs", target: "≤ 1000" },
    { label: "parse time max", value: Math.max(...times), unit: "µs", target: "" },
    {
      label: "parse time p50 behind 64 KiB of log lines",
      value: percentile(paddedTimes, 50),
      unit: "µs",
      target: "≤ 2000",
    },
    {
      label: "parse time p99 behind 64 KiB of log lines",
      value: percentile(paddedTimes, 99),
      unit: "µs",
      target: "",
    },
  ];
}
