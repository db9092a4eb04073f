import { describe, expect, it } from "vitest";
import { createTerminalReporter } from "../../src/cli/report/terminal-reporter.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import type { PhaseRow } from "../../src/trace/events.js";

function phase(number: number, name: string): PhaseRow {
  return {
    id: `run-p0${number}`,
    adw_id: "run",
    number,
    name,
    kind: "agent",
    owner: name,
    description: "",
    status: "running",
    started_at: new Date().toISOString(),
    ended_at: null,
    duration_ms: 0,
    error: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
    context_tokens: null,
    replayed_at: null,
  };
}

const toolCall: ToolCall = {
  tool: "write",
  name: "write a.txt",
  args: {},
  result: "",
  ok: true,
  startedAt: new Date(0),
  endedAt: new Date(5),
};

describe("the terminal reporter beside parallel phases", () => {
  it("names the phase of tool call and log lines only while phases overlap", () => {
    const lines: string[] = [];
    const out = { isTTY: false, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
    const reporter = createTerminalReporter(out, "/");
    const spec = phase(2, "spec");
    const design = phase(3, "design");
    reporter.phaseStarted(spec);
    reporter.toolCall(spec, toolCall);
    reporter.phaseStarted(design);
    reporter.toolCall(design, toolCall);
    reporter.log("! invalid GenericOutput", spec);
    reporter.log("a line about the run");
    reporter.phaseEnded({ ...design, status: "success", duration_ms: 10 });
    reporter.toolCall(spec, toolCall);
    expect(lines.filter((l) => !/^[▶✔]/.test(l))).toEqual([
      "   · write a.txt 5ms\n",
      "   · [03 design] write a.txt 5ms\n",
      "   [02 spec] ! invalid GenericOutput\n",
      "   a line about the run\n",
      "   · write a.txt 5ms\n",
    ]);
  });
});
