import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const GiB = 1024 ** 3;

/**
 * An exec agent that prints one 1 GiB JSON event (a tool result), written 1 MiB at a time as the pipe
 * drains, then its final envelope.
 */
const AGENT = (reply: string) => `
process.stdin.resume();
process.stdin.on("end", async () => {
  const out = process.stdout;
  const write = (chunk) => (out.write(chunk) ? undefined : new Promise((resolve) => out.once("drain", resolve)));
  const start = '{"type":"tool_call","tool":"read","args":{},"result":"';
  const block = Buffer.alloc(1024 * 1024, "x");
  await write(start);
  let left = ${GiB} - start.length - 2;
  while (left > 0) {
    const chunk = left >= block.length ? block : block.subarray(0, left);
    left -= chunk.length;
    await write(chunk);
  }
  await write('"}\\n');
  await write(JSON.stringify({ type: "result", text: ${JSON.stringify(reply)} }) + "\\n");
});
`;

it("caps a 1 GiB stdout line: the run completes, the session ends, the trace names the bytes dropped", {
  timeout: 600_000,
}, async () => {
  sb.setup([{ name: "assistant", turns: [] }]);
  const script = path.join(sb.agentsDir, "huge-line.mjs");
  writeFileSync(script, AGENT(envelopeJson({ summary: "read a huge file", notes_for_next_agent: "none" })));
  sb.writeConfig({
    agents: [{ name: "assistant", coding_agent: "exec", command: [process.execPath, script] }],
  });

  // A heap far below the line's size: a run that held the whole line would die of it.
  const result = await sb.run(["run", "prompt", "read it"], { NODE_OPTIONS: "--max-old-space-size=256" });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const adwId = adwIdFrom(result.stdout);

  const [session] = sb.query<{ status: string }>("SELECT status FROM sessions WHERE adw_id = ?", adwId);
  expect(session?.status).toBe("success");
  const logs = sb.query<{ name: string; payload: string }>(
    "SELECT name, payload FROM events WHERE adw_id = ? AND type = 'log' AND name LIKE 'stdout line of %'",
    adwId,
  );
  expect(logs).toHaveLength(1);
  const details = JSON.parse(logs[0]?.payload ?? "{}");
  expect(details).toMatchObject({
    line_bytes: GiB,
    dropped_bytes: GiB - details.head_bytes - details.tail_bytes,
  });
  expect(logs[0]?.name).toBe(
    `stdout line of ${GiB} bytes capped: ${details.dropped_bytes} bytes dropped (kept the first ${details.head_bytes} and the last ${details.tail_bytes})`,
  );

  // raw_output.jsonl holds the capped line with its marker, then the result line.
  const raw = path.join(sb.sessionDir(adwId), "assistant/raw_output.jsonl");
  expect(statSync(raw).size).toBeLessThan(details.head_bytes + details.tail_bytes + 4096);
  const lines = readFileSync(raw, "utf8").split("\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toContain(`<sssf: ${details.dropped_bytes} bytes of this line dropped>`);
  expect(lines[0]?.startsWith('{"type":"tool_call","tool":"read","args":{},"result":"xxx')).toBe(true);
  expect(lines[0]?.endsWith('xxx"}')).toBe(true);
  expect(JSON.parse(lines[1] ?? "")).toMatchObject({ type: "result" });
});
