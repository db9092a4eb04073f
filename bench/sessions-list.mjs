// `sssf sessions --json` over a database of 10,000 sessions.
import path from "node:path";
import { openTraceStore, Tracer } from "../dist/trace/index.js";
import { cli, fmt, median, scratch, timeCommand } from "./lib.mjs";

const SESSIONS = 10_000;
const RUNS = 11;

async function seed(dir) {
  const dbPath = path.join(dir, "sssf.db");
  const store = await openTraceStore(dbPath);
  const tracer = new Tracer({ store, eventsFile: path.join(dir, "seed.jsonl") });
  const start = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < SESSIONS; i++) {
    const started = new Date(start + i * 60_000).toISOString();
    tracer.write({
      table: "sessions",
      row: {
        adw_id: i.toString(16).padStart(8, "0"),
        workflow: "plan-build-test",
        request: `request number ${i}: add a feature with a reasonably long description of what is wanted`,
        status: i % 7 === 0 ? "fail" : "success",
        accepted: i % 7 === 0 ? 0 : 1,
        reason: "accepted",
        cwd: "/repo",
        started_at: started,
        ended_at: started,
        duration_ms: 42_000,
        input_tokens: 12_000,
        output_tokens: 800,
        cache_read_tokens: 4_000,
        cache_write_tokens: 1_000,
        cost_usd: 0.05,
        archived: 0,
      },
    });
  }
  await tracer.close();
  await store.close();
  return dbPath;
}

export async function run() {
  const { dir, cleanup } = scratch("sessions");
  try {
    const dbPath = await seed(dir);
    const all = median(
      timeCommand(
        [process.execPath, cli, "sessions", "--json", "--limit", String(SESSIONS), "--db", dbPath],
        RUNS,
      ),
    );
    const page = median(timeCommand([process.execPath, cli, "sessions", "--json", "--db", dbPath], RUNS));
    const node = median(timeCommand([process.execPath, "-e", "0"], RUNS));
    return [
      {
        label: `sssf sessions --json --limit ${SESSIONS} (all of ${SESSIONS}), median`,
        value: all,
        unit: "ms",
        target: "≤ 300",
      },
      {
        label: `sssf sessions --json (default page of 50, ${SESSIONS} in db), median`,
        value: page,
        unit: "ms",
        target: "",
      },
      { label: "node -e 0 on this machine now, median", value: node, unit: "ms", target: "" },
    ];
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
