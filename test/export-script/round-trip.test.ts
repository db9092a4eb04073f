/**
 * `sssf export-script` round trips through the built CLI (`npm run build` first) and real CLIs: a
 * plan-build run is recorded against a fake-model script (tool calls that write files), exported, and
 * run again from the export in a fresh clone: the same phases accepted, the same files on the run's
 * branch, the same accepted envelopes, and every exported step played.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FakeScript, LoggedRequest } from "../../src/testing/index.js";
import { claudeBinary } from "../runtimes/claude-code/claude-code-world.js";
import { piBinary } from "../runtimes/pi/pi-world.js";
import { createRecordedRepo, type RecordedRepo, runFacts } from "./recorded-repo.js";

const REQUEST = "Add a greet function";
const GREET = "export const greet = () => 'hi';\n";
const report = (fields: Record<string, unknown>) => JSON.stringify({ status: "success", ...fields });

const repos: RecordedRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

/** Which recorded steps the fake answered in `repo`'s last `--fake-script` run, in order. */
function answeredSteps(repo: string): (number | string | null)[] {
  return readFileSync(path.join(repo, "adws/adw_data/fake-model/requests.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedRequest & { kind: string })
    .filter((entry) => entry.kind === "request" && entry.step !== null)
    .map((entry) => entry.step);
}

/** Records `script` with `codingAgent`, exports it, replays the export in a clone; returns both runs' facts. */
async function roundTrip(codingAgent: string, command: string, script: FakeScript) {
  const repo = createRecordedRepo(codingAgent, command);
  repos.push(repo);
  const original = path.join(path.dirname(repo.dir), `${path.basename(repo.dir)}.script.json`);
  writeFileSync(original, JSON.stringify(script));
  const recorded = await repo.sssf(["run", "plan-build", REQUEST, "--fake-script", original]);
  expect(recorded.stderr).toBe("");
  expect(recorded.code).toBe(0);
  const adwId = /adw_id (\S+)/.exec(recorded.stdout)?.[1] ?? "";

  const exported = path.join(path.dirname(repo.dir), `${path.basename(repo.dir)}.exported.json`);
  const exportRun = await repo.sssf(["export-script", adwId, "--out", exported]);
  expect(exportRun.stderr).toBe("");
  expect(exportRun.code).toBe(0);
  expect(exportRun.stdout).toContain(
    `play it: sssf run plan-build 'Add a greet function' --fake-script ${exported}`,
  );

  const clone = repo.clone();
  const replayed = await repo.sssf(["run", "plan-build", REQUEST, "--fake-script", exported], { cwd: clone });
  expect(replayed.stderr).toBe("");
  expect(replayed.code).toBe(0);
  const steps = (JSON.parse(readFileSync(exported, "utf8")) as FakeScript).steps;
  // Every exported step answered exactly one request, in order; none unplayed, none invented.
  expect(answeredSteps(clone)).toEqual(steps.map((_, index) => index));
  return { before: runFacts(repo.dir, recorded.stdout), after: runFacts(clone, replayed.stdout), steps };
}

describe("sssf export-script round trips", () => {
  it("pi: recorded, exported, replayed in a fresh clone: same phases, files and envelopes", async () => {
    const { before, after, steps } = await roundTrip("pi", piBinary, {
      steps: [
        {
          match: { text: "Write the plan", hasTools: true, afterToolResult: false },
          writeFile: { path: "specs/greet.md", content: "# Plan\n\nAdd greet.\n" },
          usage: { input: 1200, output: 40 },
        },
        {
          match: { text: "Write the plan", afterToolResult: true },
          reply: `Plan written. ${report({ summary: "planned greet", artifacts: ["specs/greet.md"], commit_message: "Plan greet" })}`,
        },
        {
          match: { text: "Implement the plan", hasTools: true, afterToolResult: false },
          tool: {
            name: "bash",
            args: { command: "mkdir -p src && printf '%s\\n' 'export {};' > src/index.js" },
          },
        },
        {
          match: { text: "Implement the plan", afterToolResult: true },
          writeFile: { path: "src/greet.js", content: GREET },
          usage: { input: 2000, output: 30, cacheRead: 700 },
        },
        {
          match: { text: "Implement the plan", afterToolResult: true },
          reply: report({
            summary: "built greet",
            changed_files: ["src/greet.js", "src/index.js"],
            commit_message: "Add greet",
          }),
        },
      ],
    });
    expect(before.accepted).toBe(true);
    expect(after).toEqual(before);
    expect(after.files).toEqual({
      "specs/greet.md": "# Plan\n\nAdd greet.\n",
      "src/greet.js": GREET,
      "src/index.js": "export {};\n",
    });
    expect(after.phases.map((phase) => [phase.name, phase.status])).toEqual([
      ["request", "success"],
      ["plan", "success"],
      ["build", "success"],
      ["commit", "success"],
    ]);
    // The tool calls went out with their arguments, and the usage the model reported with them.
    expect(steps[0]).toEqual({
      match: { hasTools: true },
      tool: { name: "write", args: { path: "specs/greet.md", content: "# Plan\n\nAdd greet.\n" } },
      usage: { input: 1200, output: 40, cacheRead: 0, cacheWrite: 0 },
    });
    expect(steps[3]?.usage).toEqual({ input: 2000, output: 30, cacheRead: 700, cacheWrite: 0 });
  });

  it("claude_code: the same round trip, with claude's native structured answers", async () => {
    const { before, after, steps } = await roundTrip("claude_code", claudeBinary, {
      steps: [
        {
          match: { text: "Write the plan", hasTools: true, afterToolResult: false },
          writeFile: { path: "specs/greet.md", content: "# Plan\n\nAdd greet.\n" },
        },
        {
          match: { afterToolResult: true, nativeSchema: true },
          structured: {
            status: "success",
            summary: "planned greet",
            artifacts: ["specs/greet.md"],
            commit_message: "Plan greet",
          },
        },
        {
          match: { text: "Implement the plan", hasTools: true, afterToolResult: false },
          writeFile: { path: "src/greet.js", content: GREET },
        },
        {
          match: { afterToolResult: true, nativeSchema: true },
          structured: {
            status: "success",
            summary: "built greet",
            changed_files: ["src/greet.js"],
            commit_message: "Add greet",
          },
        },
      ],
    });
    expect(before.accepted).toBe(true);
    expect(after).toEqual(before);
    expect(after.files).toEqual({ "specs/greet.md": "# Plan\n\nAdd greet.\n", "src/greet.js": GREET });
    expect(steps.filter((step) => step.structured !== undefined)).toHaveLength(2);
    expect(steps[0]?.tool).toEqual({
      name: "Write",
      args: { file_path: "specs/greet.md", content: "# Plan\n\nAdd greet.\n" },
    });
  });
});
