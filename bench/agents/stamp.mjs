// A sssf-exec/1 agent that stamps the time it was started into STAMP_FILE (one line per send), then
// answers success, or fail when its prompt says FINAL-PHASE (so the run stays resumable).
import { appendFileSync } from "node:fs";

const stampFile = process.argv[2];
appendFileSync(stampFile, `${Date.now()}\n`);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const status = input.includes("FINAL-PHASE") ? "fail" : "success";
  const text = JSON.stringify({ status, summary: `${status} here`, artifacts: [] });
  process.stdout.write(`${JSON.stringify({ type: "result", text })}\n`);
});
