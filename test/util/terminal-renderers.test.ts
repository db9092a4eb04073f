import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderListing } from "../../src/cli/commands/list-workflows-rows.js";
import { agentText, table, truncate } from "../../src/cli/format.js";
import { createTerminalReporter } from "../../src/cli/report/terminal-reporter.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import type { PhaseRow, SessionRow } from "../../src/trace/events.js";

const HOSTILE = "\x1b[2J\x1b]8;;https://evil\x07click\x1b]8;;\x07\u202e\u009b";
const VISIBLE = "␛[2J␛]8;;https://evil␇click␛]8;;␇<U+202E><U+009B>";

describe("truncate (cli/format)", () => {
  it("cuts by graphemes: never half an emoji or a surrogate pair", () => {
    // Cut by code units, the first would end in a lone high surrogate.
    expect(truncate("👍🏽".repeat(5), 3)).toBe("👍🏽👍🏽…");
    expect(truncate("x👨‍👩‍👧‍👦y👨‍👩‍👧‍👦z", 4)).toBe("x👨‍👩‍👧‍👦y…");
    expect(truncate("  two\n\tlines  ", 20)).toBe("two lines");
  });
});

describe("agentText (cli/format)", () => {
  it("redacts before it cuts, so a cut never leaves part of a secret", () => {
    const text = "export ANTHROPIC_API_KEY=sk-ant-abcdefghijklmnopqrstuvwxyz0123";
    expect(agentText(text, 60)).toBe("export ANTHROPIC_API_KEY=[redacted:anthropic-api-key]");
    expect(agentText(`${HOSTILE}\nnext`)).toBe(`${VISIBLE}␊next`);
    expect(agentText(`${HOSTILE}\nnext`, 100)).toBe(`${VISIBLE} next`);
  });
});

describe("table (cli/format)", () => {
  it("makes every cell safe and aligns columns by graphemes", () => {
    const text = table(
      ["NAME", "OK"],
      [
        ["👍🏽👍🏽", "yes"],
        [`${HOSTILE}\nsecond line`, "no"],
        ["plain", "-"],
      ],
    );
    expect(text.split("\n")).toEqual([
      `NAME${" ".repeat(VISIBLE.length + 12 - 4)}  OK`,
      `👍🏽👍🏽${" ".repeat(VISIBLE.length + 12 - 2)}  yes`,
      `${VISIBLE}␊second line  no`,
      `plain${" ".repeat(VISIBLE.length + 12 - 5)}  -`,
    ]);
  });
});

describe("renderListing (sssf list)", () => {
  it("shows a repo workflow's description and error as visible escapes, keeping its lines", () => {
    const text = renderListing(
      {
        config: { file: "/repo/sssf.config.yaml", loaded: true, error: null },
        workflows: [
          {
            name: "evil",
            description: `fine${HOSTILE}`,
            source: "repo",
            file: "adws/adw_evil.ts",
            overrides_builtin: false,
            phases: ["request"],
            agents: [],
            suites: [],
            missing_agents: [],
            missing_suites: [],
            error: null,
          },
        ],
      },
      "/repo",
    );
    expect(text).toContain(`\n  fine${VISIBLE}\n`);
    expect(text).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
  });
});

function phase(status: PhaseRow["status"], error: string | null): PhaseRow {
  return {
    id: "run-p02",
    adw_id: "run",
    number: 2,
    name: `build${HOSTILE}`,
    kind: "agent",
    owner: "builder",
    description: `describe${HOSTILE}`,
    status,
    started_at: new Date(0).toISOString(),
    ended_at: null,
    duration_ms: 5,
    error,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
    context_tokens: null,
    replayed_at: null,
  };
}

describe("the terminal reporter on a colour terminal", () => {
  const saved = {
    NO_COLOR: process.env.NO_COLOR,
    TERM: process.env.TERM,
    FORCE_COLOR: process.env.FORCE_COLOR,
  };
  beforeEach(() => {
    delete process.env.NO_COLOR;
    process.env.TERM = "xterm-256color";
    // styleText colours only when it believes the process's stdout is a colour terminal.
    process.env.FORCE_COLOR = "1";
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("paints sssf's own colours around agent text whose escapes are shown, not acted on", () => {
    const lines: string[] = [];
    const out = { isTTY: true, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
    // The plain lines on a colour terminal (the live view prints the same lines above its area).
    const reporter = createTerminalReporter(out, "/", { mode: "plain" });
    const call: ToolCall = {
      tool: "bash",
      name: HOSTILE,
      args: {},
      result: HOSTILE,
      ok: false,
      startedAt: new Date(0),
      endedAt: new Date(5),
    };
    reporter.phaseStarted(phase("running", null));
    reporter.toolCall(phase("running", null), call);
    reporter.log(`! ${HOSTILE}`, phase("running", null));
    reporter.phaseEnded(phase("fail", `failed: ${HOSTILE}`));
    const session: SessionRow = {
      adw_id: "run",
      workflow: `flow${HOSTILE}`,
      request: "go",
      status: "fail",
      accepted: 0,
      reason: HOSTILE,
      cwd: "/",
      started_at: new Date(0).toISOString(),
      ended_at: new Date(1).toISOString(),
      duration_ms: 1,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0,
      archived: 0,
      worktree: "/wt/run\x1b[2J\u202e",
      branch: `sssf/${HOSTILE}`,
      base_ref: "0123456789abcdef",
      checkout: "/",
      pid: null,
      host: null,
    };
    // The session folder is here: this sssf ran the run, so the end speaks of its branch.
    const sessionDir = mkdtempSync(join(tmpdir(), "sssf-reporter-"));
    reporter.sessionStarted(session, sessionDir, false);
    reporter.finished(session, []);
    rmSync(sessionDir, { recursive: true, force: true });
    const output = lines.join("");
    // sssf's SGR colour codes are there …
    expect(output).toContain("\x1b[31m!\x1b[39m");
    expect(output).toContain(`\x1b[33m! ${VISIBLE}\x1b[39m`);
    expect(output).toContain(`\x1b[31mfailed: ${VISIBLE}\x1b[39m`);
    expect(output).toContain(`▶\x1b[39m 02 build${VISIBLE} (agent builder)`);
    expect(output).toContain(`\x1b[1msssf flow${VISIBLE}\x1b[22m`);
    expect(output).toContain(`NOT ACCEPTED\x1b[39m\x1b[22m run: ${VISIBLE}\n`);
    expect(output).toContain(`branch sssf/${VISIBLE} left for review · worktree wt/run␛[2J<U+202E>\n`);
    // … and nothing else a terminal would act on.
    expect(output.replace(/\x1b\[\d+m/g, "")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });
});
