import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RUN_SUMMARY_KEYS, SUMMARY_PHASE_KEYS } from "../../src/cli/run-summary.js";
import { git } from "../code/fixtures.js";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** The one JSON object a `--json` command printed: stdout is exactly one line of JSON. */
function onlyJson(stdout: string): Record<string, unknown> {
  const lines = stdout.split("\n").filter((line) => line !== "");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "") as Record<string, unknown>;
}

function expectSummaryShape(summary: Record<string, unknown>): void {
  expect(Object.keys(summary)).toEqual([...RUN_SUMMARY_KEYS]);
  expect(Object.keys(summary.tokens as object)).toEqual(["input", "output", "cache_read", "cache_write"]);
  for (const phase of summary.phases as Record<string, unknown>[]) {
    expect(Object.keys(phase)).toEqual([...SUMMARY_PHASE_KEYS]);
    expect(typeof phase.replayed).toBe("boolean");
  }
  for (const commit of summary.commits as Record<string, unknown>[])
    expect(Object.keys(commit)).toEqual(["sha", "subject"]);
}

/** Passes at the base, fails once src/slug.js exists without the file `fixed`: the fix makes it pass. */
const TEST_SUITE =
  "const { existsSync } = require('node:fs'); process.exit(existsSync('src/slug.js') && !existsSync('fixed') ? 1 : 0)";

function gitRepo(): void {
  writeFileSync(
    path.join(sb.dir, ".gitignore"),
    "adws/adw_data/sessions/\nadws/adw_data/*.db*\nadws/adw_data/.worktrees/\n",
  );
  git(sb.dir, "init", "-q", "-b", "main");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

describe("sssf run --json", () => {
  it("prints one summary object for an accepted run, and nothing else on stdout", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          {
            reply: envelopeJson({ summary: "said hi 👍🏽", notes_for_next_agent: "none" }),
            usage: {
              input_tokens: 100,
              output_tokens: 20,
              cache_read_tokens: 5,
              cache_write_tokens: 7,
              cost: 0.01,
            },
          },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "say hi", "--json"]);
    expect(result.code).toBe(0);
    const summary = onlyJson(result.stdout);
    expectSummaryShape(summary);
    expect(summary).toMatchObject({
      workflow: "prompt",
      status: "success",
      accepted: true,
      reason: "said hi 👍🏽",
      exit_code: 0,
      tokens: { input: 100, output: 20, cache_read: 5, cache_write: 7 },
      cost_usd: 0.01,
      branch: null,
      worktree: null,
      base_ref: null,
      commits: [],
    });
    expect(summary.adw_id).toMatch(/^[0-9a-f]{8}$/);
    expect(summary.session_dir).toBe(sb.sessionDir(summary.adw_id as string));
    const phases = summary.phases as Record<string, unknown>[];
    expect(phases.map((p) => [p.number, p.name, p.kind, p.status])).toEqual([
      [1, "request", "engineer", "success"],
      [2, "prompt", "agent", "success"],
    ]);
    // Progress went to stderr.
    expect(result.stderr).toContain("ACCEPTED");
  });

  it("reports a failed run with exit code 1, its failed phase and error", async () => {
    sb.setup([
      { name: "assistant", turns: [{ reply: envelopeJson({ status: "fail", summary: "cannot do it" }) }] },
    ]);
    const result = await sb.run(["run", "prompt", "say hi", "--json"]);
    expect(result.code).toBe(1);
    const summary = onlyJson(result.stdout);
    expectSummaryShape(summary);
    expect(summary).toMatchObject({ status: "fail", accepted: false, exit_code: 1 });
    const failed = (summary.phases as Record<string, unknown>[]).find((p) => p.status === "fail");
    expect(failed).toMatchObject({ name: "prompt", kind: "agent", owner: "assistant" });
    expect(typeof failed?.error).toBe("string");
  });

  it("lists the run's branch commits; the build's message is the subject and the fix's is kept in the body", async () => {
    sb.setup(
      [
        {
          name: "builder",
          turns: [
            {
              match: "Fix the code",
              tool_calls: [{ tool: "write", write_file: { path: "fixed", content: "yes\n" } }],
              reply: envelopeJson({
                summary: "fixed the test",
                changed_files: ["fixed"],
                commit_message: "Fix the failing slug test",
              }),
            },
            {
              tool_calls: [
                { tool: "write", write_file: { path: "src/slug.js", content: "export const slug = 1;\n" } },
              ],
              reply: envelopeJson({
                summary: "added slug",
                changed_files: ["src/slug.js"],
                commit_message: "Add slug helper",
              }),
            },
          ],
        },
      ],
      { quality: { test: { command: [process.execPath, "-e", TEST_SUITE] } } },
    );
    gitRepo();
    const result = await sb.run(["run", "build-test", "add a slug helper", "--json"]);
    expect(result.stderr).toContain("ACCEPTED");
    expect(result.code).toBe(0);
    const summary = onlyJson(result.stdout);
    expectSummaryShape(summary);
    expect(summary.branch).toBe(`sssf/build-test/${summary.adw_id}`);
    expect(typeof summary.worktree).toBe("string");
    expect(summary.base_ref).toMatch(/^[0-9a-f]{40}$/);
    const commits = summary.commits as { sha: string; subject: string }[];
    expect(commits.map((c) => c.subject)).toEqual(["Add slug helper"]);
    expect(commits[0]?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(git(sb.dir, "log", "-1", "--format=%B", summary.branch as string).trim()).toBe(
      "Add slug helper\n\n- Fix the failing slug test",
    );
  });

  it("in place, lists the commits the run's code phases made (from the trace)", async () => {
    sb.setup([
      {
        name: "builder",
        turns: [
          {
            tool_calls: [
              { tool: "write", write_file: { path: "src/slug.js", content: "export const slug = 1;\n" } },
            ],
            reply: envelopeJson({
              summary: "added",
              changed_files: ["src/slug.js"],
              commit_message: "Add slug",
            }),
          },
        ],
      },
    ]);
    gitRepo();
    const result = await sb.run(["run", "build", "add a slug helper", "--in-place", "--json"]);
    expect(result.code).toBe(0);
    const summary = onlyJson(result.stdout);
    expect(summary).toMatchObject({ branch: null, worktree: null, base_ref: null });
    const head = git(sb.dir, "rev-parse", "HEAD").trim();
    expect(summary.commits).toEqual([{ sha: head, subject: "Add slug" }]);
  });

  it("prints a config error as JSON with exit code 2", async () => {
    sb.writeConfig({ agents: [{ name: "a", coding_agent: "exec", command: ["node"], colour: "#fff" }] });
    const result = await sb.run(["run", "prompt", "go", "--json"]);
    expect(result.code).toBe(2);
    const body = onlyJson(result.stdout) as { error: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.keys(body.error)).toEqual(["code", "message", "field", "file", "problems"]);
    expect(body.error).toMatchObject({ code: "config_invalid", field: "agents[0].colour" });
    expect(body.error.file).toBe(path.join(sb.dir, "adws/adw_sssf_config/sssf.config.yaml"));
    expect((body.error.problems as unknown[]).length).toBeGreaterThan(0);
    expect(result.stderr).toBe("");
  });

  it("prints a usage error (unknown workflow, unknown flag) as JSON with exit code 2", async () => {
    sb.setup([{ name: "assistant", turns: [] }]);
    const unknown = await sb.run(["run", "no-such-workflow", "go", "--json"]);
    expect(unknown.code).toBe(2);
    expect(onlyJson(unknown.stdout)).toMatchObject({ error: { code: "usage" } });
    const flag = await sb.run(["run", "prompt", "go", "--json", "--no-such-flag"]);
    expect(flag.code).toBe(2);
    expect(onlyJson(flag.stdout)).toMatchObject({ error: { code: "usage" } });
  });
});

describe("sssf resume --json", () => {
  it("prints the same summary shape, replayed phases marked", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          { reply: envelopeJson({ status: "fail", summary: "no" }) },
          { reply: envelopeJson({ summary: "yes" }) },
        ],
      },
    ]);
    const first = onlyJson((await sb.run(["run", "prompt", "say hi", "--json"])).stdout);
    const result = await sb.run(["resume", first.adw_id as string, "--json"]);
    expect(result.code).toBe(0);
    const summary = onlyJson(result.stdout);
    expectSummaryShape(summary);
    expect(summary).toMatchObject({ adw_id: first.adw_id, accepted: true, exit_code: 0 });
    const phases = summary.phases as Record<string, unknown>[];
    expect(phases.find((p) => p.name === "request")?.replayed).toBe(true);
  });
});
