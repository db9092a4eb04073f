// `sssf --help` (to a pipe, as scripts and these benches call it) next to a bare `node -e 0`, run in
// turn — node, sssf, node, sssf… — so a machine whose speed drifts shows in both, and the ratio is
// taken from the two medians of one run. `sssf --version` goes through the program (commander).
import { cli, fmt, median, timeCommand } from "./lib.mjs";

const RUNS = 21;

export async function run() {
  timeCommand([process.execPath, cli, "--help"], 2);
  const node = [];
  const help = [];
  const version = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(...timeCommand([process.execPath, "-e", "0"], 1));
    help.push(...timeCommand([process.execPath, cli, "--help"], 1));
    version.push(...timeCommand([process.execPath, cli, "--version"], 1));
  }
  const bare = median(node);
  return [
    { label: "node -e 0 on this machine now, median", value: bare, unit: "ms", target: "" },
    { label: "sssf --help, median", value: median(help), unit: "ms", target: "" },
    { label: "sssf --help ÷ node -e 0", value: median(help) / bare, unit: "×", target: "≤ 1.25" },
    {
      label: "sssf --version (the program loaded) ÷ node -e 0",
      value: median(version) / bare,
      unit: "×",
      target: "",
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
