// The trace's two drivers side by side: better-sqlite3 on this Node and node:sqlite on Node 24 (the
// binary scripts/test-other-nodes.mjs caches), each in a child process doing the same work: 100,000 event
// records through the Tracer (batched upserts in transactions), then 200 indexed reads of a session's
// events. Interleaved, 3 rounds each; medians and the ratio node:sqlite ÷ better-sqlite3.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fmt, median, root } from "./lib.mjs";

const NODE24 = path.join(
  root,
  `node_modules/.cache/sssf-node24/node_modules/node-${process.platform}-${process.arch}/bin/node`,
);
const ROUNDS = 3;

const WORK = `
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { openTraceDb, Tracer, listEvents } from ${JSON.stringify(path.join(root, "dist/trace/index.js"))};
import { sqliteDriver } from ${JSON.stringify(path.join(root, "dist/trace/sqlite.js"))};
const dir = mkdtempSync(path.join(tmpdir(), "sssf-bench-drivers-"));
const db = openTraceDb(path.join(dir, "sssf.db"));
const tracer = new Tracer({ db, eventsFile: path.join(dir, "events.jsonl") });
const t0 = performance.now();
for (let i = 0; i < 100000; i++) {
  const at = new Date(1767225600000 + i).toISOString();
  tracer.write({ table: "events", row: { id: "e" + i, adw_id: "s" + (i % 50), phase_id: null, parent_id: null,
    type: "tool_call", name: "bash: ls " + i, agent: "a", ok: 1, started_at: at, ended_at: at, duration_ms: 0,
    payload: JSON.stringify({ args: { command: "ls " + i }, result: "x".repeat(64) }) } });
}
tracer.flush();
const t1 = performance.now();
let rows = 0;
for (let i = 0; i < 200; i++) rows += listEvents(db, "s" + (i % 50)).length > 0 ? 1 : 0;
const t2 = performance.now();
tracer.close(); db.close(); rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ driver: sqliteDriver(), node: process.version, write: t1 - t0, read: t2 - t1, rows }));
`;

function once(node, driver) {
  const result = spawnSync(node, ["--input-type=module", "-e", WORK], {
    encoding: "utf8",
    env: { ...process.env, SSSF_SQLITE_DRIVER: driver },
  });
  if (result.status !== 0) throw new Error(`${driver} on ${node}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1));
}

export async function run() {
  if (!existsSync(NODE24)) {
    return [
      {
        label: "node:sqlite on Node 24: run `node scripts/test-other-nodes.mjs` once to fetch Node 24",
        value: Number.NaN,
        unit: "",
        target: "",
      },
    ];
  }
  const better = { write: [], read: [] };
  const builtin = { write: [], read: [] };
  let versions = "";
  for (let i = 0; i < ROUNDS; i++) {
    const b = once(process.execPath, "better-sqlite3");
    const n = once(NODE24, "node:sqlite");
    versions = `${b.node} / ${n.node}`;
    better.write.push(b.write);
    better.read.push(b.read);
    builtin.write.push(n.write);
    builtin.read.push(n.read);
  }
  const [bw, br, nw, nr] = [better.write, better.read, builtin.write, builtin.read].map(median);
  return [
    {
      label: `100,000 event writes, better-sqlite3 (${versions.split(" / ")[0]}), median`,
      value: bw,
      unit: "ms",
      target: "",
    },
    {
      label: `100,000 event writes, node:sqlite (${versions.split(" / ")[1]}), median`,
      value: nw,
      unit: "ms",
      target: "",
    },
    { label: "writes node:sqlite ÷ better-sqlite3", value: nw / bw, unit: "×", target: "≤ 1.5" },
    {
      label: "200 session event reads (2,000 rows each), better-sqlite3, median",
      value: br,
      unit: "ms",
      target: "",
    },
    {
      label: "200 session event reads (2,000 rows each), node:sqlite, median",
      value: nr,
      unit: "ms",
      target: "",
    },
    { label: "reads node:sqlite ÷ better-sqlite3", value: nr / br, unit: "×", target: "≤ 1.5" },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
