// Shared helpers for the benchmarks: statistics, timing child processes, scratch folders.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const cli = path.join(root, "dist/cli/main.js");

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export const median = (values) => percentile(values, 50);

/** Wall time of a command, `runs` times, in ms. */
export function timeCommand(argv, runs, options = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], ...options });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${argv.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return times;
}

export function scratch(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), `sssf-bench-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
