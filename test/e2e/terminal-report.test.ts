import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../code/fixtures.js";
import { adwIdFrom, collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { runOnTerminal, screen } from "../helpers/terminal.js";

const SECRET = "sk-ant-api03-TERMINALREPORTSECRET0123456789abcdefghij";
const HOSTILE = "\x1b[2J\x07\u202e";

/**
 * A repo workflow that makes the reporter say everything it can: a log line and an approval (--yes),
 * two phases side by side (tagged lines), an agent with tool calls and a correction, a failing suite
 * (its output after the ✘ line), a phase that throws, and a reason.
 */
const WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";

export default defineWorkflow({
  name: "story",
  description: "Says everything the terminal shows",
  agents: ["teller"],
  suites: ["test"],
  async run(run, request) {
    await run.engineer("request", { description: "Capture the request" }, async (phase) => {
      await phase.ask("Ship it?", { plan: "tell the story" });
    });
    const [out] = await run.parallel([
      () =>
        run.agent("work", { owner: "teller", description: "Do the work" }, (phase) =>
          phase.call({ outputType: GenericOutput, prompt: request, previous: null }),
        ),
      () =>
        run.code("side", { owner: "code", description: "Alongside" }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
        }),
    ]);
    await run.code("test", { owner: "quality", description: "Run the suite" }, (phase) => phase.runSuite("test"));
    try {
      await run.code("boom", { owner: "git", description: "Throws" }, () => {
        throw new Error("boom: " + request);
      });
    } catch {
      // Traced as failed; the run goes on to finish.
    }
    return run.finish({ accepted: false, reason: "finished: " + out.summary });
  },
});
`;

/** A suite that fails after a few lines of output. */
const SUITE_SCRIPT = `for (let i = 1; i <= 3; i++) console.log("check " + i + " failed");
process.exit(1);`;

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

function setUpStory(): void {
  sb.setup(
    [
      {
        name: "teller",
        turns: [
          {
            tool_calls: [
              { tool: "bash", bash: "echo hello" },
              { tool: "bash", name: `curl ${SECRET} ${HOSTILE}`, args: {}, result: "401" },
            ],
            reply: "not JSON yet",
          },
          { reply: envelopeJson({ summary: `told ${HOSTILE}`, artifacts: [], notes_for_next_agent: "" }) },
        ],
      },
    ],
    { quality: { test: { command: [process.execPath, "-e", SUITE_SCRIPT] } } },
  );
  writeFileSync(path.join(sb.dir, "adws/adw_story.ts"), WORKFLOW);
  git(sb.dir, "init", "-q");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

/** Runs the CLI on a pseudo-terminal in the sandbox (test/helpers/terminal.ts). */
function onTerminal(args: string[], extra: Record<string, string> = {}, columns = 100) {
  return runOnTerminal(sb.dir, args, extra, columns);
}

describe("the terminal reporter", () => {
  it("sssf tail of a finished run prints the lines the plain sssf run printed, byte for byte", async () => {
    setUpStory();
    const run = await sb.run(["run", "story", `tell it ${SECRET}`, "--yes"]);
    expect(run.code, run.stderr).toBe(1);
    const adwId = adwIdFrom(run.stdout);
    // Plain: no cursor control, no colors; every kind of line is there.
    expect(run.stdout).not.toMatch(/[\x1b\x07\u202e]/);
    expect(run.stdout).not.toContain(SECRET);
    for (const line of [
      /^ {3}approved by --yes: Ship it\?$/m,
      /^ {3}· (\[02 work\] )?bash: echo hello \d+ms$/m,
      /^ {3}· (\[02 work\] )?curl \[redacted:anthropic-api-key\] ␛\[2J␇<U\+202E> \d+ms$/m,
      /^ {3}(\[02 work\] )?! invalid GenericOutput \(.*\): correction 1\/\d in the same session$/m,
      /^✘ 04 test .*test: failed \(exit 1\)$/m,
      /^ {3}│ check 3 failed$/m,
      /^✘ 05 boom .* boom: tell it \[redacted:anthropic-api-key\]$/m,
      new RegExp(`^NOT ACCEPTED ${adwId}: finished: told ␛\\[2J␇<U\\+202E>$`, "m"),
    ])
      expect(run.stdout).toMatch(line);

    const tail = await sb.run(["tail", adwId, "--from-start"]);
    expect(tail.stderr).toBe("");
    expect(tail.code).toBe(0);
    expect(tail.stdout).toBe(run.stdout);
    expect((await sb.run(["events", adwId, "--follow"])).stdout).toBe(run.stdout);
    const last = await sb.run(["tail", adwId, "--lines", "4"]);
    expect(last.stdout).toBe(`${run.stdout.trimEnd().split("\n").slice(-4).join("\n")}\n`);
  });

  it("sssf tail of a running run prints what the run printed so far, then the rest as it comes", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            delay_ms: 3000,
            tool_calls: [{ tool: "bash", bash: "echo slow" }],
            reply: envelopeJson({ summary: "took a while" }),
          },
        ],
      },
    ]);
    const child = sb.start(["run", "prompt", "wait a bit"]);
    const finished = collect(child);
    const adwId = await new Promise<string>((resolve, reject) => {
      let seen = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        // The phase has started: the tail begins in the middle of the run.
        const match = /adw_id (\S+)[\s\S]*▶ 02/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      child.on("close", () => reject(new Error(`the run ended first:\n${seen}`)));
    });
    const tail = await sb.run(["tail", adwId, "--from-start"]);
    const run = await finished;
    expect(run.code).toBe(0);
    expect(tail.code).toBe(0);
    expect(tail.stdout).toBe(run.stdout);
  });

  it("draws the live view on a terminal, whose permanent lines are the plain ones", async () => {
    const file = path.join(sb.agentsDir, "streaming-agent.mjs");
    writeFileSync(
      file,
      `import { readFileSync } from "node:fs";
readFileSync(0, "utf8");
const say = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
say({ type: "text", text: "Looking at the repository with ${SECRET}\\n" });
say({ type: "tool_start", tool: "bash", args: { command: "ls -la" } });
await new Promise((resolve) => setTimeout(resolve, 300));
say({ type: "tool_call", tool: "bash", args: { command: "ls -la" }, result: "README.md", ok: true, duration_ms: 2 });
say({ type: "result", text: ${JSON.stringify(envelopeJson({ summary: "looked" }))} });
`,
    );
    sb.setup([{ name: "assistant", turns: [], extra: { command: [process.execPath, file] } }]);
    const live = await onTerminal(["run", "prompt", "look around"]);
    expect(live.code, live.stdout).toBe(0);
    // The live area: cursor hidden and shown again, a spinner line with the tool in flight, erased.
    expect(live.stdout).toContain("\x1b[?25l");
    expect(live.stdout).toContain("\x1b[?25h");
    expect(live.stdout).toContain("\x1b[1A\x1b[2K");
    const plainText = live.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    expect(plainText).toMatch(/\S 02 prompt \(agent assistant\) \d+s · ⚙ bash: ls -la/);
    expect(plainText).not.toContain(SECRET);
    // Colors on a terminal.
    expect(live.stdout).toMatch(/\x1b\[3\dm/);
    const adwId = adwIdFrom(plainText);

    // What stays on the screen is what the plain reporter prints, as sssf tail prints it to a pipe.
    const piped = await sb.run(["tail", adwId, "--from-start"]);
    expect(piped.code).toBe(0);
    expect(screen(live.stdout)).toBe(piped.stdout);
    // And sssf tail on a terminal of the finished run: the same, in color.
    const tailed = await onTerminal(["tail", adwId, "--from-start"]);
    expect(tailed.code).toBe(0);
    expect(tailed.stdout).toMatch(/\x1b\[3\dm/);
    expect(screen(tailed.stdout)).toBe(piped.stdout);

    // A narrow terminal: every live line is cut to its width, the permanent lines are whole.
    const narrow = await onTerminal(["run", "prompt", "look again"], {}, 30);
    expect(narrow.code, narrow.stdout).toBe(0);
    const frames = narrow.stdout
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
      .split(/\r\n|\r/)
      // The spinner's lines and the agent's text under them (▶ and ✔ lines are permanent).
      .filter((line) => /^[^▶✔✘\s] 02 prompt|^ {3}› /.test(line));
    expect(frames.length).toBeGreaterThan(0);
    for (const line of frames) expect([...line].length).toBeLessThanOrEqual(29);
    expect(screen(narrow.stdout)).toMatch(/^ {3}· bash: ls -la \d+ms$/m);
  });

  it("prints plain lines on a terminal with NO_COLOR, CI or TERM=dumb", async () => {
    const turn = { reply: envelopeJson({ summary: "hi" }) };
    sb.setup([{ name: "assistant", turns: [turn, turn, turn] }]);
    const envs: Record<string, string>[] = [{ NO_COLOR: "1" }, { CI: "true" }, { TERM: "dumb" }];
    for (const env of envs) {
      const result = await onTerminal(["run", "prompt", "hi"], env);
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).not.toContain("\x1b[?25l");
      expect(result.stdout).toMatch(/^✔ 02 prompt /m);
    }
  });
});
