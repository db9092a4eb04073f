// `npm run bench [name…]`: runs the benchmarks and prints their figures with the targets.
// Targets are goals, not assertions; on a shared machine compare medians and ratios.
// `--json`: nothing but one JSON object on stdout, the figures by key (by benchmark when several run).
import { cpus, loadavg } from "node:os";
import { figuresObject, fmt } from "./lib.mjs";

const suites = {
  "engine-overhead": () => import("./engine-overhead.mjs"),
  "trace-ingest": () => import("./trace-ingest.mjs"),
  "sessions-list": () => import("./sessions-list.mjs"),
  "stream-memory": () => import("./stream-memory.mjs"),
  "ui-open": () => import("./ui-open.mjs"),
  "native-schema": () => import("./native-schema.mjs"),
  "envelope-fuzz": () => import("./envelope-fuzz.mjs"),
  "boundary-linked": () => import("./boundary-linked.mjs"),
  resume: () => import("./resume.mjs"),
  replay: () => import("./replay.mjs"),
  "run-overhead": () => import("./run-overhead.mjs"),
  "git-spawns": () => import("./git-spawns.mjs"),
  cluster: () => import("./cluster.mjs"),
  "pg-trace": () => import("./pg-trace.mjs"),
  "trace-fleet": () => import("./trace-fleet.mjs"),
  sandbox: () => import("./sandbox.mjs"),
  redaction: () => import("./redaction.mjs"),
  correction: () => import("./correction.mjs"),
  realistic: () => import("./realistic.mjs"),
  flood: () => import("./flood.mjs"),
};

const args = process.argv.slice(2);
const json = args.includes("--json");
const wanted = args.filter((arg) => arg !== "--json");
const unknown = wanted.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")} (available: ${Object.keys(suites).join(", ")})`);
  process.exit(2);
}
const names = wanted.length ? wanted : Object.keys(suites);
if (json) {
  const results = {};
  for (const name of names) results[name] = figuresObject(await (await suites[name]()).run());
  console.log(JSON.stringify(names.length === 1 ? results[names[0]] : results));
} else {
  console.log(
    `node ${process.version} · ${cpus().length} cores · load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  for (const name of names) {
    const { run } = await suites[name]();
    console.log(`\n${name}`);
    for (const figure of await run()) {
      const target = figure.target ? `   (target ${figure.target} ${figure.unit})` : "";
      const digits = figure.unit === "events/s" || Number.isInteger(figure.value) ? 0 : 2;
      console.log(`  ${figure.label}: ${fmt(figure.value, digits)} ${figure.unit}${target}`);
    }
  }
}
