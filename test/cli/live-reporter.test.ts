import { describe, expect, it } from "vitest";
import { displayWidth, fitColumns } from "../../src/cli/report/live-board.js";
import { elapsedText } from "../../src/cli/report/live-view.js";
import { createTerminalReporter, wantsLiveProgress } from "../../src/cli/report/terminal-reporter.js";
import { emptyUsage } from "../../src/runtimes/runtime.js";
import type { PhaseRow, SessionRow } from "../../src/trace/events.js";
import { newPhaseRow } from "../../src/trace/rows.js";

/** A stand-in terminal: every write is kept, as written. */
function fakeTty(columns = 80) {
  const writes: string[] = [];
  return {
    stream: {
      isTTY: true,
      columns,
      write(chunk: string) {
        writes.push(String(chunk));
        return true;
      },
    },
    writes,
    /** Everything written, without colors and cursor controls. */
    text: () => writes.join("").replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ""),
    /** The last frame: what the last write drew after erasing, without colors. */
    lastFrame: () => {
      const last = writes.at(-1) ?? "";
      const drawn = last.split("\r").at(-1) ?? "";
      return drawn.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    },
  };
}

const START = Date.parse("2026-01-02T03:04:00.000Z");

function phase(fields: Partial<PhaseRow> = {}): PhaseRow {
  const row = newPhaseRow({
    adwId: "abcd1234",
    number: 2,
    name: "build",
    kind: "agent",
    owner: "builder",
    description: "builds it",
    startedAt: new Date(START),
  });
  return { ...row, ...fields };
}

describe("the live reporter", () => {
  it("draws a spinner line with elapsed time, tokens, cost, the tool in flight and the text line", () => {
    const tty = fakeTty();
    let now = START + 12_400;
    const reporter = createTerminalReporter(tty.stream, "/repo", {
      mode: "live",
      intervalMs: 0,
      now: () => now,
    });
    const row = phase({ input_tokens: 1000, output_tokens: 20, cost_usd: 0.01 });
    reporter.phaseStarted(row);
    expect(tty.text()).toContain("▶ 02 build (agent builder) builds it\n");
    reporter.sendUsage?.(row, { ...emptyUsage(), inputTokens: 234, outputTokens: 36, costUsd: 0.0023 });
    reporter.toolStarted?.(row, { tool: "bash", name: "bash: npm test", args: {}, startedAt: new Date(now) });
    reporter.agentText?.(row, "Running the tests now");
    reporter.redraw();
    const frame = tty.lastFrame();
    expect(frame).toMatch(
      /^\S 02 build \(agent builder\) 12s · 1,234 in \/ 56 out · \$0\.01 · ⚙ bash: npm test\n/,
    );
    expect(frame).toContain("› Running the tests now\n");

    // The tool ends: a permanent line above, and the live line without it.
    now += 50_000;
    reporter.toolCall(row, {
      tool: "bash",
      name: "bash: npm test",
      args: {},
      result: "ok",
      ok: true,
      startedAt: new Date(START + 12_400),
      endedAt: new Date(START + 14_400),
    });
    expect(tty.writes.at(-1)).toContain("   · bash: npm test 2.0s\n");
    reporter.redraw();
    expect(tty.lastFrame()).toMatch(/^\S 02 build \(agent builder\) 1m02s · 1,234 in \/ 56 out · \$0\.01\n/);

    // The phase ends: the live area is erased and the cursor shown again.
    reporter.sendUsage?.(row, emptyUsage());
    reporter.phaseEnded({ ...row, status: "success", duration_ms: 62_000 });
    const tail = tty.writes.slice(-3).join("");
    expect(tail).toContain("\x1b[?25h");
    expect(tty.text()).toContain("✔ 02 build 1m02s · 1,000 in / 20 out · $0.01\n");
    const before = tty.writes.length;
    reporter.redraw();
    expect(tty.writes.length).toBe(before);
  });

  it("neutralizes control characters and secrets in agent text and cuts emoji whole to the width", () => {
    const tty = fakeTty(40);
    const reporter = createTerminalReporter(tty.stream, "/repo", {
      mode: "live",
      intervalMs: 0,
      now: () => START + 1000,
    });
    const row = phase();
    reporter.phaseStarted(row);
    reporter.agentText?.(row, "key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA \x1b[2J\x07 ok");
    reporter.redraw();
    const raw = tty.writes.at(-1) ?? "";
    expect(raw).not.toContain("\x07");
    expect(raw).not.toContain("\x1b[2J");
    expect(raw).not.toContain("AAAAAAAAAAAAAAAA");

    reporter.agentText?.(row, `${"👍🏽".repeat(30)}`);
    reporter.redraw();
    const detail = tty.lastFrame().split("\n")[1] ?? "";
    expect(detail).toMatch(/^ {3}› (👍🏽)+…$/);
    expect(displayWidth(detail)).toBeLessThanOrEqual(39);
    for (const line of tty.lastFrame().split("\n")) expect(displayWidth(line)).toBeLessThanOrEqual(39);
  });

  it("gives parallel phases a line each and prints their lines above the live area", () => {
    const tty = fakeTty();
    const reporter = createTerminalReporter(tty.stream, "/repo", {
      mode: "live",
      intervalMs: 0,
      now: () => START + 3000,
    });
    const a = phase({ id: "abcd1234-p02", number: 2, name: "left" });
    const b = phase({ id: "abcd1234-p03", number: 3, name: "suite", kind: "code", owner: "code" });
    reporter.phaseStarted(a);
    reporter.phaseStarted(b);
    reporter.redraw();
    const frame = tty.lastFrame().split("\n");
    expect(frame[0]).toMatch(/^\S 02 left \(agent builder\) 3s$/);
    expect(frame[1]).toMatch(/^\S 03 suite \(code\) 3s$/);
    reporter.log("a note", a);
    const write = tty.writes.at(-1) ?? "";
    // Erase the two live lines, print the note, draw them again.
    expect(write.startsWith("\x1b[1A\x1b[2K\x1b[1A\x1b[2K\r")).toBe(true);
    expect(write.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")).toMatch(/^\r {3}\[02 left\] a note\n\S 02 left/);
    reporter.phaseEnded({ ...a, status: "success", duration_ms: 3000 });
    reporter.redraw();
    expect(tty.lastFrame()).toMatch(/^\S 03 suite \(code\) 3s\n$/);
    const session = { adw_id: "abcd1234", accepted: 1, reason: "done" } as SessionRow;
    reporter.phaseEnded({ ...b, status: "success", duration_ms: 3000 });
    reporter.finished(
      {
        ...session,
        duration_ms: 3000,
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: 0,
        worktree: null,
        branch: null,
      } as SessionRow,
      [a, b],
    );
    expect(tty.text()).toContain("ACCEPTED abcd1234: done");
  });
});

describe("choosing the reporter", () => {
  it("is live only on a terminal without NO_COLOR, CI or TERM=dumb", () => {
    expect(wantsLiveProgress({ isTTY: true }, {})).toBe(true);
    expect(wantsLiveProgress({ isTTY: false }, {})).toBe(false);
    expect(wantsLiveProgress({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(wantsLiveProgress({ isTTY: true }, { CI: "true" })).toBe(false);
    expect(wantsLiveProgress({ isTTY: true }, { TERM: "dumb" })).toBe(false);
  });
});

describe("width helpers", () => {
  it("counts wide characters as two columns and never cuts a grapheme", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("日本")).toBe(4);
    expect(fitColumns("日本語のテキスト", 7)).toBe("日本語…");
    expect(fitColumns("short", 10)).toBe("short");
    expect(elapsedText(61_000)).toBe("1m01s");
    expect(elapsedText(3_725_000)).toBe("1h02m");
  });
});
