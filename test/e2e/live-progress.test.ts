import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const SECRET = "sk-ant-api03-LIVEPROGRESSSECRET0123456789abcdefghij";

/** An exec agent that streams text and announces its tool call before reporting it (docs/exec-protocol.md). */
function streamingAgent(): string[] {
  const file = path.join(sb.agentsDir, "streaming-agent.mjs");
  const reply = envelopeJson({ summary: "looked around" });
  writeFileSync(
    file,
    `import { readFileSync } from "node:fs";
readFileSync(0, "utf8");
const say = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
say({ type: "text", text: "Looking at the " });
say({ type: "text", text: "repository\\n" });
say({ type: "tool_start", tool: "bash", args: { command: "ls -la" } });
say({ type: "tool_call", tool: "bash", args: { command: "ls -la" }, result: "README.md", ok: true, duration_ms: 2 });
say({ type: "text", text: "All done with key ${SECRET}\\n" });
say({ type: "result", text: ${JSON.stringify(reply)} });
`,
  );
  return [process.execPath, file];
}

interface EventRow {
  type: string;
  name: string;
  payload: string;
}

describe("live progress", () => {
  it("keeps piped output plain and records agent_text and tool_start events", async () => {
    sb.setup([{ name: "assistant", turns: [], extra: { command: streamingAgent() } }]);
    const result = await sb.run(["run", "prompt", "look around"]);
    expect(result.code).toBe(0);
    // Piped: the plain reporter's lines, no spinner, no cursor control, no agent text.
    expect(result.stdout).not.toMatch(/\x1b|\r/);
    expect(result.stdout).not.toContain("Looking at the");
    expect(result.stdout).toMatch(/^▶ 02 prompt \(agent assistant\)/m);
    expect(result.stdout).toMatch(/^ {3}· bash: ls -la \d+ms$/m);
    expect(result.stdout).toMatch(/^✔ 02 prompt /m);
    const adwId = adwIdFrom(result.stdout);

    const events = sb.query<EventRow>(
      "SELECT type, name, payload FROM events WHERE adw_id = ? AND type IN ('agent_text', 'tool_start', 'tool_call') ORDER BY rowid",
      adwId,
    );
    const texts = events.filter((e) => e.type === "agent_text").map((e) => JSON.parse(e.payload).text);
    // Whole lines only: the first piece ("Looking at the ") is never shown on its own.
    expect(texts[0]).toBe("Looking at the repository");
    expect(texts.at(-1)).toMatch(/^All done with key /);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const starts = events.filter((e) => e.type === "tool_start");
    expect(starts.map((e) => [e.name, JSON.parse(e.payload)])).toEqual([
      ["bash: ls -la", { tool: "bash", args: { command: "ls -la" } }],
    ]);
    expect(events.findIndex((e) => e.type === "tool_start")).toBeLessThan(
      events.findIndex((e) => e.type === "tool_call"),
    );
  });

  it("never records or shows the first pieces of a secret streamed piece by piece, or cut by a short name", async () => {
    const file = path.join(sb.agentsDir, "piecemeal-agent.mjs");
    const reply = envelopeJson({ summary: "streamed" });
    // The secret arrives in three pieces, each traced on its own (the throttle lets one through per 500 ms);
    // then a line whose 120-character event name would end 15 characters into the secret.
    writeFileSync(
      file,
      `import { readFileSync } from "node:fs";
readFileSync(0, "utf8");
const say = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
const wait = () => new Promise((resolve) => setTimeout(resolve, 650));
say({ type: "text", text: "Using key ${SECRET.slice(0, 17)}" });
await wait();
say({ type: "text", text: "${SECRET.slice(17, 30)}" });
await wait();
say({ type: "text", text: "${SECRET.slice(30)} for the call\\n" });
await wait();
say({ type: "text", text: "${"x".repeat(101)} ${SECRET} end\\n" });
say({ type: "result", text: ${JSON.stringify(reply)} });
`,
    );
    sb.setup([{ name: "assistant", turns: [], extra: { command: [process.execPath, file] } }]);
    const result = await sb.run(["run", "prompt", "stream a key"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const texts = sb.query<EventRow>(
      "SELECT type, name, payload FROM events WHERE adw_id = ? AND type = 'agent_text' ORDER BY rowid",
      adwId,
    );
    // One event per whole line, none for the pieces streamed before its newline.
    expect(texts).toHaveLength(2);
    const stored = JSON.stringify(texts);
    // Not the secret, and not its first pieces either: "sk-ant-api03-LIVE…" is past the fixed prefix.
    expect(stored).not.toContain(SECRET.slice(10, 17));
    expect(stored).not.toContain(SECRET.slice(17, 30));
    expect(texts.map((e) => JSON.parse(e.payload).text)).toContain(
      "Using key [redacted:anthropic-api-key] for the call",
    );
    // The name is cut to 120 characters after redaction: it ends inside the placeholder, never inside the key.
    expect(texts.at(-1)?.name).toMatch(/^x{101} \[redacted:anthrop/);
    expect(result.stdout + result.stderr).not.toContain(SECRET.slice(10, 17));
  });

  it("sssf tail follows a run from another process until it ends", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ delay_ms: 4000, reply: envelopeJson({ summary: "took a while" }) }],
      },
    ]);
    const run = sb.start(["run", "prompt", "wait a bit"]);
    const finished = collect(run);
    // The run's first line names its adw_id.
    const adwId = await new Promise<string>((resolve, reject) => {
      let seen = "";
      run.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /adw_id (\S+)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      run.on("close", () => reject(new Error(`the run ended first:\n${seen}`)));
    });
    const tail = await sb.run(["tail", adwId, "--from-start"]);
    const ran = await finished;
    expect(ran.code).toBe(0);
    expect(tail.stderr).toBe("");
    expect(tail.code).toBe(0);
    const started = tail.stdout.indexOf("▶ 02 prompt (agent assistant)");
    const ended = tail.stdout.search(/✔ 02 prompt \d/);
    expect(started).toBeGreaterThan(0);
    expect(ended).toBeGreaterThan(started);
    expect(tail.stdout).toContain(`ACCEPTED ${adwId}: took a while`);
    expect(tail.stdout.split("\n")[0]).toContain(`adw_id ${adwId}`);

    // The same lines again once the run is over, through sssf events --follow; the last line only.
    const follow = await sb.run(["events", adwId, "--follow"]);
    expect(follow.code).toBe(0);
    expect(follow.stdout).toBe(tail.stdout);
    const last = await sb.run(["tail", adwId, "--lines", "1"]);
    expect(last.stdout.trimEnd().split("\n").at(-1)).toBe(tail.stdout.trimEnd().split("\n").at(-1));
    expect(last.stdout).not.toContain("▶ 02 prompt");
  });

  it("sssf tail of an unknown session exits 2", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: envelopeJson({ summary: "hi" }) }] }]);
    expect((await sb.run(["run", "prompt", "hi"])).code).toBe(0);
    const tail = await sb.run(["tail", "ffffffff"]);
    expect(tail.code).toBe(2);
    expect(tail.stderr).toContain("no session ffffffff");
  });
});
