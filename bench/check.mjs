// `npm run bench:check [name…]`: runs the benchmarks named in bench/baseline.json (or those given) and
// fails when a judged figure — one with a `≤` or `≥` target — is more than 25 % worse than the stored
// one. A figure that looks worse is measured again (its benchmark runs once more, interleaved as
// always) and fails only when both runs say so: one slow minute on a shared machine is not a
// regression. `--update` stores this run's figures as the new baseline. `--ci` judges only the figures
// `baseline.json` lists under `ci`: those that hold still on a loaded shared machine (counts of git
// processes, and ratios of two commands measured in turn), as `.ci/run` runs it.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fmt, root } from "./lib.mjs";

const TOLERANCE = 0.25;
const baselineFile = path.join(root, "bench/baseline.json");

const args = process.argv.slice(2);
const update = args.includes("--update");
const baseline = JSON.parse(readFileSync(baselineFile, "utf8"));
const ci = args.includes("--ci");
const names = args.filter((a) => !a.startsWith("--"));
const suites = names.length > 0 ? names : Object.keys(ci ? baseline.ci : baseline.figures);
/** Whether `label` of suite `name` is judged in this run (in `--ci`, only the figures listed there). */
const judged = (name, label) => !ci || (baseline.ci[name] ?? []).includes(label);

/** Lower is better for `≤` targets, higher for `≥`; other figures are reported, not judged. */
const direction = (target) => (target?.startsWith("≤") ? -1 : target?.startsWith("≥") ? 1 : 0);

/** How much worse `value` is than `stored` (0.3 = 30 % worse), for a figure of `dir`. */
const worseBy = (value, stored, dir) => (dir < 0 ? value / stored - 1 : stored / value - 1);

async function measure(name) {
  const { run } = await import(`./${name}.mjs`);
  return run();
}

let failed = 0;
const next = {
  ...baseline,
  measured_at: new Date().toISOString().slice(0, 10),
  figures: { ...baseline.figures },
};
for (const name of suites) {
  const stored = baseline.figures[name] ?? {};
  let figures = await measure(name);
  const suspicious = () =>
    figures.filter((f) => {
      const dir = direction(f.target);
      return (
        dir !== 0 &&
        judged(name, f.label) &&
        stored[f.label] !== undefined &&
        worseBy(f.value, stored[f.label], dir) > TOLERANCE
      );
    });
  if (!update && suspicious().length > 0) {
    console.log(`${name}: ${suspicious().length} figure(s) look worse; measuring again`);
    const again = await measure(name);
    // A figure fails only when the second run is as bad: keep the better of the two runs.
    figures = figures.map((f) => {
      const other = again.find((g) => g.label === f.label);
      if (!other) return f;
      const dir = direction(f.target);
      return dir !== 0 && worseBy(other.value, f.value, dir) < 0 ? other : f;
    });
  }
  next.figures[name] = {};
  console.log(`\n${name}`);
  for (const f of figures) {
    const dir = direction(f.target);
    if (dir === 0) continue;
    next.figures[name][f.label] = Number(f.value.toFixed(3));
    const before = stored[f.label];
    const worse = before === undefined ? 0 : worseBy(f.value, before, dir);
    const verdict = !judged(name, f.label)
      ? "(not judged)"
      : before === undefined
        ? "new"
        : worse > TOLERANCE
          ? "REGRESSED"
          : "ok";
    if (verdict === "REGRESSED" && !update) failed++;
    const was =
      before === undefined ? "" : ` (stored ${fmt(before)}, ${worse > 0 ? "+" : ""}${fmt(worse * 100, 0)} %)`;
    console.log(`  ${verdict.padEnd(12)} ${f.label}: ${fmt(f.value)} ${f.unit}${was}`);
  }
}

if (update) {
  writeFileSync(baselineFile, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`\nstored in ${path.relative(root, baselineFile)}`);
} else {
  console.log(
    failed === 0
      ? "\nno figure regressed by more than 25 %"
      : `\n${failed} figure(s) regressed by more than 25 %`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
}
