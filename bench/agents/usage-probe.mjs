// Preloaded into a sssf process (`node --import …/usage-probe.mjs`): at exit it appends the process's
// own peak RSS and CPU time (its children's are not counted) to $SSSF_BENCH_USAGE, one JSON line.
import { appendFileSync } from "node:fs";

const file = process.env.SSSF_BENCH_USAGE;
if (file) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    const line = {
      max_rss_bytes: usage.maxRSS * 1024,
      cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
}
