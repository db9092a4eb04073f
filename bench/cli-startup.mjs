// `sssf --help` wall time, next to a bare `node -e 0` so a noisy machine shows as a ratio.
import { cli, fmt, median, timeCommand } from "./lib.mjs";

const RUNS = 21;

export async function run() {
  timeCommand([process.execPath, cli, "--help"], 2);
  const node = median(timeCommand([process.execPath, "-e", "0"], RUNS));
  const help = median(timeCommand([process.execPath, cli, "--help"], RUNS));
  return [
    { label: "sssf --help, median", value: help, unit: "ms", target: "≤ 150" },
    { label: "node -e 0 on this machine now, median", value: node, unit: "ms", target: "" },
    { label: "sssf --help ÷ bare node start", value: help / node, unit: "×", target: "" },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
