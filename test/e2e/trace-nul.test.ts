import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, asStored, envelopeJson, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** A tool call whose name, command and result hold a NUL character, between ordinary ones. */
const NAMED = "printf 'a\u0000b' # then the rest";

describe("a NUL in what an agent sends reaches the trace with what follows it", () => {
  it("one call and a flood, on every driver", async () => {
    // Enough calls in one burst that flushes hold full batches (a flood), not a trickle.
    const count = 3000;
    const calls = Array.from({ length: count }, (_, i) => ({
      tool: "bash",
      name: i === count / 2 ? NAMED : `echo ${i}`,
      args: { command: i === count / 2 ? NAMED : `echo ${i}` },
      result: i === count / 2 ? NAMED : String(i),
      ok: true,
    }));
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [{ tool: "bash", name: NAMED, args: { command: NAMED }, result: NAMED, ok: true }],
            reply: envelopeJson({ summary: "one" }),
          },
        ],
      },
      { name: "flooder", turns: [{ tool_calls: calls, reply: envelopeJson({ summary: "done" }) }] },
    ]);
    const first = await sb.run(["run", "prompt", "one call", "--agent", "assistant"]);
    const flood = await sb.run(["run", "prompt", "a flood", "--agent", "flooder"]);
    for (const run of [first, flood]) {
      expect(run.stderr).toBe("");
      const events = await sb.run(["events", adwIdFrom(run.stdout), "--type", "tool_call", "--json"]);
      const names = (JSON.parse(events.stdout) as { name: string }[]).map((event) => event.name);
      expect(names).toContain(asStored(NAMED));
    }
    const floodId = adwIdFrom(flood.stdout);
    const rows = sb.query<{ n: number }>(
      "SELECT count(*) AS n FROM events WHERE adw_id = ? AND type = 'tool_call'",
      floodId,
    );
    expect(rows[0]?.n).toBe(count);
    // The session's own file keeps the NUL itself (as a JSON escape).
    const file = readFileSync(path.join(sb.sessionDir(floodId), "events.jsonl"), "utf8");
    expect(file).toContain(JSON.stringify(NAMED).slice(1, -1));
  });
});
