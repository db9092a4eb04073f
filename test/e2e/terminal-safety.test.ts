import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, asStored, envelopeJson, Sandbox } from "../helpers/sandbox.js";

/**
 * What a hostile or broken agent could print to take over the terminal that shows sssf's output: clear
 * the screen and move the cursor, a hyperlink whose text hides its target, a clipboard write, a bell,
 * right-to-left overrides and the other bidi controls, the 8-bit CSI and another C1 control, a
 * backspace and carriage-return overwrite, a NUL.
 */
const HOSTILE =
  "\x1b[2J\x1b[1;1H" +
  "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07" +
  "\x1b]52;c;ZXZpbA==\x07" +
  "\x07" +
  "report\u202egpj.exe\u202c \u202a\u202b\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c" +
  "\u009b31mred\u0085" +
  "oops\b\b\b\bdone\rX\0end";

/**
 * What sssf prints instead on one line (docs/trace.md, "What sssf prints is safe to show"): each control
 * as a visible escape; whitespace runs are one space on a one-line field, so the CR overwrite is a space.
 */
const ONE_LINE =
  "␛[2J␛[1;1H" +
  "␛]8;;https://evil.example␇click␛]8;;␇" +
  "␛]52;c;ZXZpbA==␇" +
  "␇" +
  "report<U+202E>gpj.exe<U+202C> <U+202A><U+202B><U+202D><U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+061C>" +
  "<U+009B>31mred<U+0085>" +
  "oops␈␈␈␈done X␀end";
/** Its start, to the hyperlink's text: what a column cut to 80 characters still shows. */
const HEAD = ONE_LINE.slice(0, ONE_LINE.indexOf("click") + "click".length);

/** Every C0 control but newline, DEL, every C1 control, every bidi control. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function expectSafe(output: string, label: string): void {
  const found = UNSAFE.exec(output);
  expect(found, `${label} printed U+${found?.[0].codePointAt(0)?.toString(16).padStart(4, "0")}`).toBeNull();
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("what sssf prints of an agent's text is safe to show", () => {
  it("escapes tool-call names, log lines, the reply summary and the trace listings", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [
              {
                tool: "bash",
                name: HOSTILE,
                args: { command: HOSTILE },
                result: HOSTILE,
                ok: false,
              },
            ],
            stderr: `${HOSTILE}\n`,
            // A claimed artifact that does not exist: the gate's violation, with its name, is a log line.
            reply: envelopeJson({ summary: HOSTILE, artifacts: [`gone ${HOSTILE.replace("\0", "")}.md`] }),
          },
          { match: "artifactsExist", reply: envelopeJson({ summary: HOSTILE }) },
        ],
      },
    ]);
    const run = await sb.run(["run", "prompt", `request ${HOSTILE.replace("\0", "")}`]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expectSafe(run.stdout, "sssf run");
    const adwId = adwIdFrom(run.stdout);
    const lines = run.stdout.split("\n");
    // The tool call's name, the gate's log line and the reason on the banner, each escaped.
    const toolLine = lines.find((line) => line.startsWith("   ! ␛[2J"));
    const logLine = lines.find((line) => line.includes("! artifactsExist: gone ␛[2J"));
    const banner = lines.find((line) => line.startsWith(`ACCEPTED ${adwId}: ␛[2J`));
    for (const line of [toolLine, logLine, banner]) expect(line, run.stdout).toBeDefined();
    expect(banner).toBe(`ACCEPTED ${adwId}: ${ONE_LINE}`);
    // A tool call's name is cut to 100 characters (before escaping): it ends in the C1 controls.
    const toolName = ONE_LINE.slice(0, ONE_LINE.indexOf("oops") + 1);
    expect(toolLine).toMatch(new RegExp(`^   ! ${escapeRegExp(toolName)}… \\d+ms$`));
    expect(logLine).toContain(`gone ${ONE_LINE.replace("␀", "")}.md`);

    const events = await sb.run(["events", adwId]);
    expect(events.code).toBe(0);
    expectSafe(events.stdout, "sssf events");
    const toolRow = events.stdout.split("\n").find((line) => line.includes(" tool_call "));
    expect(toolRow).toContain(ONE_LINE.slice(0, 89));

    const envelopes = await sb.run(["envelopes", adwId]);
    expectSafe(envelopes.stdout, "sssf envelopes");
    expect(envelopes.stdout).toContain(HEAD);

    const sessions = await sb.run(["sessions"]);
    expectSafe(sessions.stdout, "sssf sessions");
    expect(sessions.stdout).toContain("request ␛[2J");

    // --json stays JSON, lossless, with every control written as a JSON escape.
    for (const name of ["events", "envelopes", "phases"]) {
      const json = await sb.run([name, adwId, "--json"]);
      expect(json.code).toBe(0);
      expectSafe(json.stdout.trimEnd(), `sssf ${name} --json`);
      expect(() => JSON.parse(json.stdout)).not.toThrow();
    }
    const eventsJson = JSON.parse((await sb.run(["events", adwId, "--json"])).stdout) as { name: string }[];
    expect(eventsJson.map((event) => event.name)).toContain(asStored(HOSTILE));
    const sessionsJson = await sb.run(["sessions", "--json"]);
    expectSafe(sessionsJson.stdout.trimEnd(), "sssf sessions --json");
    const [session] = JSON.parse(sessionsJson.stdout) as { request: string }[];
    expect(session?.request).toBe(`request ${HOSTILE.replace("\0", "")}`);
  });

  it("escapes a failed phase's error in sssf run and sssf phases", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [{ reply: JSON.stringify({ status: "fail", summary: HOSTILE }) }],
      },
    ]);
    const run = await sb.run(["run", "prompt", "go"]);
    expect(run.code).toBe(1);
    expectSafe(run.stdout, "sssf run");
    expectSafe(run.stderr, "sssf run (stderr)");
    const adwId = adwIdFrom(run.stdout);
    const lines = run.stdout.split("\n");
    const phaseEnd = lines.find((line) => line.startsWith("✘ 02 prompt"));
    expect(phaseEnd, run.stdout).toContain(`assistant reported status "fail": ${ONE_LINE}`);
    expect(lines.find((line) => line.startsWith(`NOT ACCEPTED ${adwId}:`))).toContain(ONE_LINE);

    const phases = await sb.run(["phases", adwId]);
    expect(phases.code).toBe(0);
    expectSafe(phases.stdout, "sssf phases");
    const row = phases.stdout.split("\n").find((line) => line.includes(" prompt "));
    // The ERROR column is cut to 80 characters, counted before the escapes are written.
    expect(row).toContain(HEAD);

    const events = await sb.run(["events", adwId, "--type", "error"]);
    expectSafe(events.stdout, "sssf events --type error");
    expect(events.stdout).toContain(HEAD);
  });

  it("escapes what the repo says: a workflow's description, phases and reason, doctor's findings", async () => {
    sb.setup([{ name: "assistant", turns: [] }], {
      quality: { lint: { command: ["\x1b]8;;https://evil.example\x07lint\x1b]8;;\x07", "."] } },
    });
    const evil = String.raw`\x1b[2J\x07\u202e\u009b\b`;
    const file = path.join(sb.dir, "adws/adw_evil.ts");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      `import { defineWorkflow } from "sssf";
const evil = "${evil}";
export default defineWorkflow({
  name: "evil", description: "harmless" + evil, agents: [], phases: ["request"],
  async run(run, request) {
    await run.engineer("request", { description: "capture" + evil }, (phase) => phase.log("got it", { request }));
    return run.finish({ accepted: true, reason: "done" + evil });
  },
});
`,
    );
    const visible = "␛[2J␇<U+202E><U+009B>␈";

    const list = await sb.run(["list"]);
    expect(list.code).toBe(0);
    expectSafe(list.stdout, "sssf list");
    expect(list.stdout).toContain(`  harmless${visible}\n`);
    const listJson = await sb.run(["list", "--json"]);
    expectSafe(listJson.stdout.trimEnd(), "sssf list --json");
    const listing = JSON.parse(listJson.stdout) as { workflows: { name: string; description: string }[] };
    expect(listing.workflows.find((w) => w.name === "evil")?.description).toBe(
      "harmless\x1b[2J\x07\u202e\u009b\b",
    );

    const run = await sb.run(["run", "evil", "go"]);
    expect(run.code).toBe(0);
    expectSafe(run.stdout, "sssf run evil");
    expect(run.stdout).toContain(`▶ 01 request (engineer) capture${visible}\n`);
    expect(run.stdout).toContain(`: done${visible}\n`);

    const doctor = await sb.run(["doctor"]);
    expect(doctor.code).toBe(1);
    expectSafe(doctor.stdout, "sssf doctor");
    expect(doctor.stdout).toMatch(/✘ lint\s+␛\]8;;https:\/\/evil\.example␇lint␛\]8;;␇ not found/);
  });

  it("escapes what an error message quotes on stderr", async () => {
    const result = await sb.run(["run", "prompt", "go", "--cwd", "/no/such\x1b[2J\u202edir\u009b"]);
    expect(result.code).toBe(2);
    expectSafe(result.stderr, "sssf run --cwd (stderr)");
    expect(result.stderr).toBe("sssf: --cwd: /no/such␛[2J<U+202E>dir<U+009B> does not exist\n");
  });
});
