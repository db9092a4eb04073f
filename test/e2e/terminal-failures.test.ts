import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../code/fixtures.js";
import { adwIdFrom, collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { runOnTerminal, screen } from "../helpers/terminal.js";

/**
 * What failed, on a terminal: a failing suite's last lines under its ✘ line (live, piped, through
 * sssf tail), and the agent's text a whole line at a time without the envelope its reply ends with.
 */

const SECRET = "sk-ant-api03-TERMINALFAILURESECRET0123456789abcdefghij";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** Runs the CLI on a pseudo-terminal in the sandbox. */
function onTerminal(args: string[], extra: Record<string, string> = {}, columns = 100) {
  return runOnTerminal(sb.dir, args, extra, columns);
}

/** A repo workflow: an agent (slow enough for a tail to join it), then a suite that fails. */
const FAILING_SUITE_WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";

export default defineWorkflow({
  name: "redsuite",
  description: "An agent, then a failing suite",
  agents: ["builder"],
  suites: ["test"],
  async run(run, request) {
    await run.agent("build", { owner: "builder", description: "Build it" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request, previous: null }),
    );
    const verify = await run.code("test", { owner: "quality", description: "Run the suite" }, (phase) =>
      phase.runSuite("test"),
    );
    return run.finish({ accepted: verify.passed, reason: verify.summary });
  },
});
`;

/** A suite whose output runs past the 30 lines shown, with a secret and a control character in it. */
const LONG_SUITE_SCRIPT = `for (let i = 1; i <= 40; i++) console.log("FAIL tests/case_" + i + ".test.ts");
console.log("token ${SECRET} \\x1b[2J");
console.log("Tests: 40 failed");
process.exit(1);`;

function setUpFailingSuite(delayMs: number): void {
  sb.setup(
    [
      {
        name: "builder",
        turns: [{ delay_ms: delayMs, reply: envelopeJson({ summary: "built" }), repeat: true }],
      },
    ],
    {
      quality: { test: { command: [process.execPath, "-e", LONG_SUITE_SCRIPT] } },
    },
  );
  writeFileSync(path.join(sb.dir, "adws/adw_redsuite.ts"), FAILING_SUITE_WORKFLOW);
  git(sb.dir, "init", "-q");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

/** What a failing suite's lines say on every terminal: the ✘ line, the last 30 lines, the log. */
function expectSuiteLines(text: string): void {
  expect(text).toMatch(/^✘ 02 test \d\S* test: failed \(exit 1\)$/m);
  expect(text).toMatch(/^ {3}test output, last 30 lines:$/m);
  expect(text).toMatch(/^ {3}│ FAIL tests\/case_40\.test\.ts$/m);
  expect(text).toMatch(/^ {3}│ token \[redacted:anthropic-api-key\] ␛\[2J$/m);
  expect(text).toMatch(/^ {3}│ Tests: 40 failed$/m);
  // The cap: the 12 lines of output before the last 30 are not printed.
  expect(text).not.toMatch(/case_12\.test/);
  expect(text).toMatch(/^ {3}full log: adws\/adw_data\/sessions\/\S+\/code\/p02-test\.test\.log$/m);
  expect(text).not.toContain(SECRET);
  // The lines come right after the ✘ line, in order.
  const lines = text.split("\n");
  const end = lines.findIndex((line) => line.startsWith("✘ 02 test"));
  expect(lines[end + 1]).toBe("   test output, last 30 lines:");
  expect(lines[end + 2]).toBe("   │ FAIL tests/case_13.test.ts");
}

describe("a failing suite on the terminal", () => {
  it("shows its last lines under the ✘ line live on a terminal, piped, and through sssf tail of the finished run", async () => {
    setUpFailingSuite(0);
    const live = await onTerminal(["run", "redsuite", "make it"]);
    expect(live.code, live.stdout).toBe(1);
    const shown = screen(live.stdout);
    expectSuiteLines(shown);
    const adwId = adwIdFrom(shown);

    const piped = await sb.run(["tail", adwId, "--from-start"]);
    expect(piped.code).toBe(0);
    expectSuiteLines(piped.stdout);
    expect(shown).toBe(piped.stdout);
    const tailed = await onTerminal(["tail", adwId, "--from-start"]);
    expect(tailed.code).toBe(0);
    expect(screen(tailed.stdout)).toBe(piped.stdout);

    const run = await sb.run(["run", "redsuite", "make it again"]);
    expect(run.code).toBe(1);
    expectSuiteLines(run.stdout);
  });

  it("shows them through sssf tail on a terminal that joined the run while it was running", async () => {
    setUpFailingSuite(6000);
    const child = sb.start(["run", "redsuite", "make it slowly"]);
    const finished = collect(child);
    const adwId = await new Promise<string>((resolve, reject) => {
      let seen = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        // The agent phase has started (it answers after 6 s): the tail joins before the suite runs.
        const match = /adw_id (\S+)[\s\S]*▶ 01/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      child.on("close", () => reject(new Error(`the run ended first:\n${seen}`)));
    });
    const tailed = await onTerminal(["tail", adwId, "--from-start"]);
    const run = await finished;
    expect(run.code).toBe(1);
    expect(tailed.code).toBe(0);
    // What stays on the tail's screen ends with the suite's lines, as the run printed them.
    expectSuiteLines(screen(tailed.stdout));
    expect(screen(tailed.stdout)).toBe(run.stdout);
  });
});

describe("the agent's text on a terminal", () => {
  it("shows each whole line once, never a half line, and never the envelope the reply ends with", async () => {
    const file = path.join(sb.agentsDir, "chatty-agent.mjs");
    const reply = envelopeJson({ summary: "looked" });
    const fenced = `Done, here is the result:\n\`\`\`json\n${JSON.stringify(JSON.parse(reply), null, 2)}\n\`\`\`\n`;
    writeFileSync(
      file,
      `import { readFileSync } from "node:fs";
readFileSync(0, "utf8");
const say = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
const wait = () => new Promise((resolve) => setTimeout(resolve, 400));
say({ type: "text", text: "Looking at the " });
await wait();
say({ type: "text", text: "repository\\n" });
await wait();
say({ type: "text", text: "Reading README" });
await wait();
say({ type: "text", text: ".md next\\n" });
await wait();
for (const piece of ${JSON.stringify(fenced)}.match(/[\\s\\S]{1,7}/g)) say({ type: "text", text: piece });
await wait();
say({ type: "result", text: ${JSON.stringify(reply)} });
`,
    );
    sb.setup([{ name: "assistant", turns: [], extra: { command: [process.execPath, file] } }]);
    const live = await onTerminal(["run", "prompt", "look around"]);
    expect(live.code, live.stdout).toBe(0);
    const raw = live.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    // Every text line the live area drew, once each in the order they came.
    const drawn = raw
      .split(/\r\n|\r|\n/)
      .filter((line) => line.startsWith("   › "))
      .map((line) => line.slice(5));
    expect([...new Set(drawn)]).toEqual([
      "Looking at the repository",
      "Reading README.md next",
      "Done, here is the result:",
    ]);
    expect(raw).not.toContain('"status"');
    expect(raw).not.toContain("```");
    // The envelope's summary is on the ✔ line's run, as the parsed envelope says it.
    expect(screen(live.stdout)).toMatch(/^ACCEPTED \S+: looked$/m);

    // The trace holds each whole line once, and sssf tail on a terminal draws the same.
    const adwId = adwIdFrom(raw);
    const texts = sb
      .query<{ payload: string }>(
        "SELECT payload FROM events WHERE adw_id = ? AND type = 'agent_text' ORDER BY rowid",
        adwId,
      )
      .map((row) => JSON.parse(row.payload).text);
    expect(texts).toEqual([
      "Looking at the repository",
      "Reading README.md next",
      "Done, here is the result:",
    ]);
    const tailed = await onTerminal(["tail", adwId, "--from-start"]);
    expect(tailed.stdout).not.toContain('"status"');
  });
});
