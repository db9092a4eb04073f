// `sssf ui` in headless Chromium: how fast a run of 50,000 trace events opens (navigation start →
// waterfall rendered → a click on a phase answered), and how long a committed event takes to reach
// the screen while the page is open (p95 over ~200 tool calls, committed one every 20 ms).
import { spawn } from "node:child_process";
import { hostname } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { openTraceStore, Tracer } from "../dist/trace/index.js";
import { cli, fmt, median, percentile, scratch } from "./lib.mjs";
import { seedRun } from "./ui-seed.mjs";

const OPENS = 7;
const LIVE_EVENTS = 200;
const LIVE_GAP_MS = 20;
// SSSF_CHROMIUM, else the headless Chromium inside the @sparticuz/chromium dev dependency.
const CHROMIUM =
  process.env.SSSF_CHROMIUM || (await (await import("@sparticuz/chromium")).default.executablePath());

function startUi(cwd) {
  const child = spawn(process.execPath, [cli, "ui", "--port", "0"], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /sssf ui: (http:\/\/\S+)/.exec(out);
      if (match)
        resolve({
          url: match[1],
          stop: () => new Promise((done) => child.once("close", done).kill("SIGINT")),
        });
    });
    child.stderr.on("data", (chunk) => process.stderr.write(chunk));
    child.once("close", (code) => reject(new Error(`sssf ui exited ${code}`)));
  });
}

// Runs in the page before its scripts: stamps when the waterfall first renders, clicks the phase's
// bar right then (as an instant user would, without the driver's round trips), and stamps when the
// phase detail renders.
function markRenders(phaseId) {
  window.__marks = {};
  new MutationObserver(() => {
    const bar = document.querySelector(`.waterfall[data-ready] .wf-bar[data-phase-id="${phaseId}"]`);
    if (!window.__marks.waterfall && bar) {
      window.__marks.waterfall = performance.now();
      bar.click();
    }
    if (!window.__marks.phase && document.querySelector(".phase-detail[data-ready]"))
      window.__marks.phase = performance.now();
  }).observe(document, { childList: true, subtree: true, attributes: true });
}

/** One cold open (fresh browser context, empty cache): ms from navigation start. */
async function openOnce(browser, url, run) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(markRenders, run.clickPhase);
  await page.goto(`${url}#/run/${run.adwId}`);
  await page.waitForSelector(".phase-detail[data-ready]");
  const marks = await page.evaluate(() => window.__marks);
  await context.close();
  return marks;
}

/** Commits tool calls one by one into a running phase and stamps when each appears on the page. */
async function liveLatencies(browser, url, dataDir) {
  const adwId = "benchlive";
  const phaseId = `${adwId}-p01`;
  const store = await openTraceStore(path.join(dataDir, "sssf.db"));
  const committed = new Map();
  const tracer = new Tracer({
    store,
    eventsFile: path.join(dataDir, "sessions", adwId, "events.jsonl"),
    onCommit(records) {
      const now = Date.now();
      for (const record of records) if (record.table === "events") committed.set(record.row.id, now);
    },
  });
  const now = new Date().toISOString();
  const zero = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
  };
  tracer.write({
    table: "sessions",
    row: {
      adw_id: adwId,
      workflow: "build",
      request: "live latency",
      status: "running",
      accepted: null,
      reason: null,
      cwd: dataDir,
      started_at: now,
      ended_at: null,
      duration_ms: null,
      ...zero,
      archived: 0,
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
      // This process plays the run's sssf: alive, so the reaper of `sssf ui` leaves it running.
      pid: process.pid,
      host: hostname(),
    },
  });
  tracer.write({
    table: "phases",
    row: {
      id: phaseId,
      adw_id: adwId,
      number: 1,
      name: "build",
      kind: "agent",
      owner: "builder",
      description: "",
      status: "running",
      started_at: now,
      ended_at: null,
      duration_ms: null,
      error: null,
      ...zero,
      context_tokens: null,
    },
  });
  await tracer.flush();

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${url}#/run/${adwId}/phase/${phaseId}`);
  await page.waitForSelector(".phase-detail[data-ready]");
  await page.evaluate(() => {
    window.__seen = {};
    new MutationObserver(() => {
      for (const el of document.querySelectorAll(".tool-call[data-event-id]")) {
        window.__seen[el.getAttribute("data-event-id")] ??= Date.now();
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  for (let i = 0; i < LIVE_EVENTS; i++) {
    const at = new Date().toISOString();
    tracer.write({
      table: "events",
      row: {
        id: `live-${i}`,
        adw_id: adwId,
        phase_id: phaseId,
        parent_id: null,
        type: "tool_call",
        name: `bash: step ${i}`,
        agent: "builder",
        ok: 1,
        started_at: at,
        ended_at: at,
        duration_ms: 0,
        payload: JSON.stringify({ tool: "bash", args: { command: `step ${i}` }, result: "ok" }),
      },
    });
    await new Promise((resolve) => setTimeout(resolve, LIVE_GAP_MS));
  }
  await tracer.flush();
  await page.waitForFunction((n) => Object.keys(window.__seen).length >= n, LIVE_EVENTS, { timeout: 30_000 });
  const seen = await page.evaluate(() => window.__seen);
  await page.close();
  await tracer.close();
  await store.close();
  return [...committed].filter(([id]) => seen[id] !== undefined).map(([id, at]) => seen[id] - at);
}

export async function run() {
  const { dir, cleanup } = scratch("ui");
  const dataDir = path.join(dir, "adws/adw_data");
  const seeded = await seedRun(dataDir);
  const ui = await startUi(dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const opens = [];
    for (let i = 0; i < OPENS; i++) opens.push(await openOnce(browser, ui.url, seeded));
    const lags = await liveLatencies(browser, ui.url, dataDir);
    return [
      {
        label: `open a run of ${seeded.events} events: waterfall rendered, median of ${OPENS} cold opens`,
        value: median(opens.map((m) => m.waterfall)),
        unit: "ms",
        target: "",
      },
      {
        label: "… and a click on its largest phase answered (navigation start → phase shown), median",
        value: median(opens.map((m) => m.phase)),
        unit: "ms",
        target: "≤ 1500",
      },
      {
        label: "… the same, slowest of the opens",
        value: Math.max(...opens.map((m) => m.phase)),
        unit: "ms",
        target: "",
      },
      {
        label: `live: commit → on screen, p50 over ${lags.length} tool calls`,
        value: percentile(lags, 50),
        unit: "ms",
        target: "",
      },
      { label: "live: commit → on screen, p95", value: percentile(lags, 95), unit: "ms", target: "≤ 250" },
      { label: "live: commit → on screen, max", value: Math.max(...lags), unit: "ms", target: "" },
    ];
  } finally {
    await browser.close();
    await ui.stop();
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
