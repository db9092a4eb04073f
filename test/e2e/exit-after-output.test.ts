import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliPath, envelopeJson, Sandbox } from "../helpers/sandbox.js";

/**
 * sssf ends without Node's teardown once a command is done (src/cli/main.ts): only after the event
 * loop is empty, so output still queued for a slow pipe is written whole before the process ends.
 */

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const CALLS = 20_000;

/** An exec agent that reports CALLS tool calls at once, then its envelope. */
const AGENT = (reply: string) => `
process.stdin.resume();
process.stdin.on("end", () => {
  const at = new Date().toISOString();
  let out = "";
  for (let i = 0; i < ${CALLS}; i++)
    out += JSON.stringify({ type: "tool_call", tool: "bash", args: { command: "echo " + i }, result: "line " + i,
      started_at: at, ended_at: at }) + "\\n";
  out += JSON.stringify({ type: "result", text: ${JSON.stringify(reply)} }) + "\\n";
  process.stdout.write(out);
});
`;

/** Runs the CLI with stdout on a pipe nobody reads for `stallMs`, then read to the end. */
function runSlowlyRead(args: string[], stallMs: number): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: sb.dir,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const chunks: Buffer[] = [];
  const stdout = child.stdout;
  stdout.pause();
  setTimeout(() => {
    stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    stdout.resume();
  }, stallMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(chunks).toString("utf8") }));
  });
}

describe("the end of a command", () => {
  it("writes megabytes of --json to a pipe read late whole, then exits with the command's code", {
    timeout: 120_000,
  }, async () => {
    sb.setup([{ name: "assistant", turns: [] }]);
    const script = path.join(sb.agentsDir, "many-calls.mjs");
    writeFileSync(script, AGENT(envelopeJson({ summary: "done" })));
    sb.writeConfig({
      agents: [{ name: "assistant", coding_agent: "exec", command: [process.execPath, script] }],
    });
    const run = await sb.run(["run", "prompt", "go", "--json"]);
    expect(run.code).toBe(0);
    const adwId = (JSON.parse(run.stdout) as { adw_id: string }).adw_id;

    const listed = await runSlowlyRead(["events", adwId, "--json"], 1_500);
    expect(listed.code).toBe(0);
    expect(listed.stdout.length).toBeGreaterThan(4_000_000);
    const events = JSON.parse(listed.stdout) as { type: string; name: string }[];
    const calls = events.filter((event) => event.type === "tool_call");
    expect(calls).toHaveLength(CALLS);
    expect(calls.at(-1)?.name).toBe(`bash: echo ${CALLS - 1}`);

    // A failing command still ends with its own code.
    const missing = await runSlowlyRead(["events", "0000dead", "--json"], 200);
    expect(missing.code).not.toBe(0);
  });
});

describe("exit listeners", () => {
  it("one registered after the command is done (by work that went on) still runs, once, before the end", async () => {
    const preload = path.join(sb.agentsDir, "late-listener.mjs");
    const marker = path.join(sb.agentsDir, "late.txt");
    writeFileSync(
      preload,
      `import { appendFileSync } from "node:fs";
setTimeout(() => process.on("exit", (code) => appendFileSync(${JSON.stringify(marker)}, "ran " + code + "\\n")), 400);
`,
    );
    const child = spawn(process.execPath, ["--import", preload, cliPath, "--version"], {
      cwd: sb.dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(existsSync(marker)).toBe(true);
    expect(readFileSync(marker, "utf8")).toBe("ran 0\n");
  });
});
