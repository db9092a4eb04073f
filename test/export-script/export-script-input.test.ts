/**
 * `sssf export-script` on what it is given (built CLI, `npm run build` first): secrets planted in a
 * recorded run never reach the script, records that are incomplete are exported as far as they go
 * and named, an existing `--out` is never replaced silently, and an exec agent says it has no turns.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeScript } from "../../src/testing/index.js";
import { Sandbox } from "../helpers/sandbox.js";
import { piBinary } from "../runtimes/pi/pi-world.js";
import { createRecordedRepo, type RecordedRepo } from "./recorded-repo.js";

const report = (fields: Record<string, unknown>) => JSON.stringify({ status: "success", ...fields });

let repo: RecordedRepo;
let adwId = "";
const sessions = () => path.join(repo.dir, "adws/adw_data/sessions");

/** A copy of the recorded session under another adw_id, to change without touching the original. */
function copySession(copy: string): string {
  const target = path.join(sessions(), copy);
  rmSync(target, { recursive: true, force: true });
  cpSync(path.join(sessions(), adwId), target, { recursive: true });
  return target;
}

const exportScript = (args: string[], env: Record<string, string> = {}) =>
  repo.sssf(["export-script", ...args], { env });

beforeAll(async () => {
  repo = createRecordedRepo("pi", piBinary);
  const script = path.join(path.dirname(repo.dir), `${path.basename(repo.dir)}.script.json`);
  writeFileSync(
    script,
    JSON.stringify({
      steps: [
        {
          match: { text: "Write the plan", hasTools: true, afterToolResult: false },
          writeFile: { path: "specs/greet.md", content: "# Plan\n" },
        },
        {
          match: { text: "Write the plan", afterToolResult: true },
          reply: report({ summary: "planned", artifacts: ["specs/greet.md"] }),
        },
        {
          match: { text: "Implement the plan", hasTools: true, afterToolResult: false },
          writeFile: { path: "src/greet.js", content: "export {};\n" },
        },
        {
          match: { text: "Implement the plan", afterToolResult: true },
          reply: report({ summary: "built", changed_files: ["src/greet.js"] }),
        },
      ],
    } satisfies FakeScript),
  );
  const recorded = await repo.sssf(["run", "plan-build", "Add greet", "--fake-script", script]);
  expect(recorded.code).toBe(0);
  adwId = /adw_id (\S+)/.exec(recorded.stdout)?.[1] ?? "";
});
afterAll(() => repo.cleanup());

describe("sssf export-script keeps secrets out", () => {
  // Built from pieces: no secret-shaped literal sits in this file.
  const secrets = {
    anthropic: `sk-ant-api03-${"Q".repeat(93)}AA`,
    github: `ghp_${"a1B2c3D4e5".repeat(3)}f6G7h8`,
    aws: `AKIA${"QWERTYUIOP"}ASDFGH`,
    urlPassword: "hunter2hunter2",
    envValue: "s3cr3t-value-for-deploy-12345",
  };

  it("planted keys of several shapes, a password URL and an env value: none reaches the script", async () => {
    const dir = copySession("5ec2e7a1");
    const raw = path.join(dir, "planner/raw_output.jsonl");
    const planted = `keys ${secrets.anthropic} ${secrets.github} ${secrets.aws} db postgres://admin:${secrets.urlPassword}@db.example.com:5432/app deploy ${secrets.envValue}`;
    // An older sssf, or a file copied from elsewhere: the raw stream holds them unredacted.
    const lines = readFileSync(raw, "utf8")
      .split("\n")
      .map((line) => {
        if (!line.startsWith('{"type":"message_end"')) return line;
        const event = JSON.parse(line);
        if (event.message?.role !== "assistant") return line;
        for (const part of event.message.content) {
          if (part.type === "toolCall") part.arguments.content = `# Plan\n${planted}\n`;
          if (part.type === "text") part.text = `${planted} ${part.text}`;
        }
        return JSON.stringify(event);
      });
    writeFileSync(raw, lines.join("\n"));
    expect(readFileSync(raw, "utf8")).toContain(secrets.anthropic);
    const events = path.join(dir, "events.jsonl");
    writeFileSync(
      events,
      readFileSync(events, "utf8").replaceAll(
        '"request":"Add greet"',
        `"request":"Add greet ${secrets.github}"`,
      ),
    );

    const out = path.join(repo.dir, "secret-free.json");
    const result = await exportScript(["5ec2e7a1", "--out", out], { DEPLOY_TOKEN: secrets.envValue });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const json = await exportScript(["5ec2e7a1", "--json"], { DEPLOY_TOKEN: secrets.envValue });
    expect(json.code).toBe(0);
    const written = readFileSync(out, "utf8");
    for (const text of [written, result.stdout, json.stdout])
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret);
    for (const rule of [
      "anthropic-api-key",
      "github-pat",
      "aws-access-token",
      "url-password",
      "env:DEPLOY_TOKEN",
    ])
      expect(written).toContain(`[redacted:${rule}]`);
    const script = JSON.parse(written) as FakeScript;
    expect(script.steps[0]?.tool?.args.content).toBe(
      "# Plan\nkeys [redacted:anthropic-api-key] [redacted:github-pat] [redacted:aws-access-token] db postgres://admin:[redacted:url-password]@db.example.com:5432/app deploy [redacted:env:DEPLOY_TOKEN]\n",
    );
    expect(result.stdout).toContain("value(s) are redacted placeholders");
    expect(JSON.parse(json.stdout).request).toBe("Add greet [redacted:github-pat]");
  });
});

describe("sssf export-script on bad input", () => {
  it("an unknown adw_id exits 2 naming it", async () => {
    const result = await exportScript(["deadbeef"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `sssf: unknown adw_id deadbeef: no session folder ${path.join(sessions(), "deadbeef")}\n`,
    );
  });

  it("a missing raw_output.jsonl names the agent and its phase; its sends are rebuilt from the trace", async () => {
    const dir = copySession("0dd0a11e");
    rmSync(path.join(dir, "builder/raw_output.jsonl"));
    const out = path.join(repo.dir, "partial.json");
    const result = await exportScript(["0dd0a11e", "--out", out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `incomplete: agent builder (phases p03 build): ${path.join(dir, "builder/raw_output.jsonl")} is missing; its 1 send(s) are rebuilt from the trace: each traced tool call by the name sssf gave it (the CLI's own for pi), then the reply the send parsed; no tokens, no text between calls\n`,
    );
    const script = JSON.parse(readFileSync(out, "utf8")) as FakeScript;
    expect(script.steps.slice(2)).toEqual([
      {
        match: { hasTools: true },
        tool: { name: "write", args: { path: "src/greet.js", content: "export {};\n" } },
      },
      { match: { hasTools: true }, reply: report({ summary: "built", changed_files: ["src/greet.js"] }) },
    ]);
    expect(script.steps.map((step) => step.tool?.name ?? "reply")).toEqual([
      "write",
      "reply",
      "write",
      "reply",
    ]);
    expect(script.fallback).toBe("error");

    // Without events.jsonl too, the builder's turns are gone; the planner's are played, and it says so.
    rmSync(path.join(dir, "events.jsonl"));
    const unordered = await exportScript(["0dd0a11e"]);
    expect(unordered.code).toBe(0);
    expect(unordered.stderr).toContain("events.jsonl is missing: sends are played agent by agent");
    expect(unordered.stderr).toContain("raw_output.jsonl is missing; its turns are not in the script");
    expect((JSON.parse(unordered.stdout) as FakeScript).steps).toHaveLength(2);

    rmSync(path.join(dir, "planner/raw_output.jsonl"));
    const nothing = await exportScript(["0dd0a11e"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toBe(
      `sssf: run 0dd0a11e has no model turns to export: agent planner: ${path.join(dir, "planner/raw_output.jsonl")} is missing; its turns are not in the script; agent builder: ${path.join(dir, "builder/raw_output.jsonl")} is missing; its turns are not in the script\n`,
    );
  });

  it("--out never replaces a file silently; --force does", async () => {
    const out = path.join(repo.dir, "kept.json");
    writeFileSync(out, "mine\n");
    const refused = await exportScript([adwId, "--out", out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`sssf: --out: ${out} exists; pass --force to replace it\n`);
    expect(readFileSync(out, "utf8")).toBe("mine\n");
    const forced = await exportScript([adwId, "--out", out, "--force"]);
    expect(forced.code).toBe(0);
    expect((JSON.parse(readFileSync(out, "utf8")) as FakeScript).steps).toHaveLength(4);
  });

  it("--agent takes one agent's turns; an unknown one is named with the run's agents", async () => {
    const one = await exportScript([adwId, "--agent", "builder"]);
    expect(one.code).toBe(0);
    expect(
      (JSON.parse(one.stdout) as FakeScript).steps.map((step) => step.tool?.args.path ?? "reply"),
    ).toEqual(["src/greet.js", "reply"]);
    const unknown = await exportScript([adwId, "--agent", "tester"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      `sssf: --agent: run ${adwId} has no agent tester (its agents: planner, builder)\n`,
    );
  });

  it("an exec agent has no model turns, and says so", async () => {
    const sb = new Sandbox();
    try {
      sb.setup([{ name: "helper", turns: [{ reply: report({ summary: "done" }) }] }]);
      const run = await sb.run(["run", "prompt", "say done", "--agent", "helper"]);
      expect(run.code).toBe(0);
      const id = /adw_id (\S+)/.exec(run.stdout)?.[1] ?? "";
      const result = await sb.run(["export-script", id]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`sssf: run ${id} has no model turns to export: `);
      expect(result.stderr).toContain("(coding_agent exec) holds no model turns sssf can read");
      expect(result.stderr).toContain("an exec agent has no model turns to play back");
      expect(existsSync(path.join(sb.dir, "adws/adw_data/sessions", id))).toBe(true);
    } finally {
      sb.cleanup();
    }
  });
});
