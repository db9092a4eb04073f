import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUiApp } from "../../../src/ui/server/app.js";
import { git } from "../../code/fixtures.js";
import { openRawSqlite } from "../../helpers/raw-sqlite.js";
import { adwIdFrom, type CliResult, collect, Sandbox } from "../../helpers/sandbox.js";
import { waitFor } from "../../helpers/wait.js";
import {
  filesUnder,
  leaksIn,
  leaksInFiles,
  PATTERN_TEXT,
  SPLIT_KEY,
} from "../../util/secrets/secret-fixtures.js";
import {
  AGENT_VALUE,
  ALL,
  E2E_SECRETS as SECRETS,
  SSSF_ENV,
  SSSF_VALUE,
  SUITE_VALUE,
} from "./secret-run-fixtures.js";

/**
 * A repo workflow that puts the secrets everywhere sssf keeps text: an engineer log line and an approval
 * question, the agent call (request, tool calls, stderr, an invalid reply then a valid one), a failing
 * suite, a diff, a phase that throws, and the reason of the run.
 */
const WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";

export default defineWorkflow({
  name: "leaky",
  description: "Leaks secrets into every place sssf stores text",
  agents: ["leaky"],
  suites: ["test"],
  async run(run, request) {
    await run.engineer("request", { description: "Capture the request" }, async (phase) => {
      phase.log("request: " + request, { request, env: { OPENAI_API_KEY: process.env.SSSF_E2E_API_KEY } });
      const answer = await phase.ask("Ship " + request + "?", { plan: request });
      phase.log("answer: " + answer.reason);
    });
    const out = await run.agent("work", { owner: "leaky", description: "Do the work" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request, previous: null }),
    );
    await run.code("test", { owner: "quality", description: "Run the suite" }, (phase) => phase.runSuite("test"));
    await run.code("changes", { owner: "git", description: "Capture the diff" }, (phase) => phase.captureChanges());
    try {
      await run.code("boom", { owner: "git", description: "Throws" }, () => {
        throw new Error("boom: " + request);
      });
    } catch {
      // The phase is traced as failed, with its error; the run goes on to finish.
    }
    return run.finish({ accepted: false, reason: "finished: " + out.summary });
  },
});
`;

/** The suite fails and prints every secret, its own env value and sssf's among them. */
const SUITE_SCRIPT = `console.log(${JSON.stringify(PATTERN_TEXT)});
console.error("suite " + process.env.SUITE_ONLY_SECRET + " sssf " + process.env.SSSF_E2E_API_KEY);
process.exit(1);`;

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

function setUpLeakyRepo(): void {
  const invalid = `Here is my report, not JSON yet: ${ALL}`;
  const valid = JSON.stringify({
    status: "success",
    summary: `did it with ${ALL}`,
    artifacts: [],
    notes_for_next_agent: `keys: ${ALL}`,
  });
  sb.setup(
    [
      {
        name: "leaky",
        extra: { env: { LEAKY_SERVICE_TOKEN: AGENT_VALUE } },
        turns: [
          {
            stderr: `warning: ${ALL}\nagent env ${AGENT_VALUE}\n`,
            tool_calls: [
              // The agent reads its own env and sssf's: the tool result holds both values.
              { tool: "bash", bash: 'echo "token=$LEAKY_SERVICE_TOKEN sssf=$SSSF_E2E_API_KEY"' },
              {
                tool: "http",
                name: `curl ${ALL}`,
                args: { url: "https://api.example.test", headers: { api_key: AGENT_VALUE }, body: ALL },
                result: `200 OK ${ALL}`,
              },
              {
                tool: "write",
                write_file: { path: "notes/leak.txt", content: `${ALL}\nTOKEN=${AGENT_VALUE}\n` },
              },
              // A key split across two consecutive tool outputs of this send.
              {
                tool: "bash",
                name: "cat creds part 1",
                args: {},
                result: `creds: ${SPLIT_KEY.slice(0, 20)}`,
              },
              { tool: "bash", name: "cat creds part 2", args: {}, result: `${SPLIT_KEY.slice(20)} (end)\n` },
            ],
            reply: invalid,
          },
          { reply: valid },
        ],
      },
    ],
    {
      quality: {
        test: { command: [process.execPath, "-e", SUITE_SCRIPT], env: { SUITE_ONLY_SECRET: SUITE_VALUE } },
      },
    },
  );
  const workflow = path.join(sb.dir, "adws/adw_leaky.ts");
  writeFileSync(workflow, WORKFLOW);
  git(sb.dir, "init", "-q");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

/** Runs the leaky workflow, answering its approval with a reason that holds secrets too. */
async function runLeaky(): Promise<{
  run: CliResult;
  approve: CliResult;
  adwId: string;
  requestFile: Buffer;
}> {
  const child = sb.start(["run", "leaky", `please ${ALL}`, "--in-place"], SSSF_ENV);
  const done = collect(child);
  const sessions = path.join(sb.dir, "adws/adw_data/sessions");
  const requestFiles = () =>
    existsSync(sessions)
      ? readdirSync(sessions).flatMap((id) => {
          const dir = path.join(sessions, id, "approvals");
          return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".request.json")) : [];
        })
      : [];
  await waitFor(() => requestFiles().length > 0, 60_000, "the approval request");
  const [adwId] = readdirSync(sessions);
  if (adwId === undefined) throw new Error("no session");
  const approvals = path.join(sessions, adwId, "approvals");
  const requestFile = readFileSync(path.join(approvals, readdirSync(approvals)[0] ?? ""));
  const approve = await sb.run(["approve", adwId, "--reason", `ok ${PATTERN_TEXT} ${SSSF_VALUE}`], SSSF_ENV);
  expect(approve.code, approve.stderr).toBe(0);
  const run = await done;
  expect(adwIdFrom(run.stdout)).toBe(adwId);
  return { run, approve, adwId, requestFile };
}

/** Every file sssf wrote under the data dir, after folding the WAL into the db; not the agent's own state. */
function storedFiles(): string[] {
  const dbPath = path.join(sb.dir, "adws/adw_data/sssf.db");
  const db = openRawSqlite(dbPath);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  // `{agent}/exec_sessions/` is the coding agent's own session state (the scripted agent's transcript of
  // what it was sent); `prompt_engineering/` is the operator's templates.
  return filesUnder(path.join(sb.dir, "adws/adw_data"), (folder) =>
    /(?:_sessions|prompt_engineering)$/.test(folder),
  );
}

describe("no secret is stored or printed", () => {
  it("redacts every pattern and every secret env value in every file, table, listing and UI response", async () => {
    setUpLeakyRepo();
    const { run, approve, adwId, requestFile } = await runLeaky();
    const leaks: string[] = [];
    leaks.push(...leaksIn("approval request file", requestFile, SECRETS));
    // `sssf approve` shows the question as the request file has it (its echo of the operator's own
    // --reason is src/cli's to redact, not checked here).
    const question = approve.stdout.split("\n").find((line) => line.includes("question:"));
    expect(question).toContain("question: Ship please");
    leaks.push(...leaksIn("sssf approve: question", question ?? "", SECRETS));
    leaks.push(
      ...leaksIn("sssf run stdout", run.stdout, SECRETS),
      ...leaksIn("sssf run stderr", run.stderr, SECRETS),
    );

    // What the engine did is intact: the agent was sent the secrets, the valid reply was parsed whole.
    expect(run.code).toBe(1);
    const sends = sb.agent("leaky").sends();
    expect(sends).toHaveLength(2);
    expect(sends[0]?.prompt).toContain(AGENT_VALUE);
    expect(sends[0]?.prompt).toContain(SSSF_VALUE);
    expect(existsSync(path.join(sb.dir, "notes/leak.txt"))).toBe(true);
    const phases = sb.query<{ name: string; status: string; error: string | null }>(
      "SELECT name, status, error FROM phases ORDER BY number",
    );
    expect(phases.map((p) => [p.name, p.status])).toEqual([
      ["request", "success"],
      ["work", "success"],
      ["test", "fail"],
      ["changes", "success"],
      ["boom", "fail"],
    ]);
    expect(phases[4]?.error).toContain("boom: please");
    const [session] = sb.query<{ reason: string; request: string }>("SELECT reason, request FROM sessions");
    expect(session?.reason).toMatch(/^finished: did it with /);
    expect(session?.reason).toContain("[redacted:");
    // The values really reached the agent's tools and the suite, and were redacted there.
    const payloads = sb.query<{ payload: string }>("SELECT payload FROM events").map((row) => row.payload);
    expect(payloads.join("\n")).toContain(
      "token=[redacted:env:LEAKY_SERVICE_TOKEN] sssf=[redacted:env:SSSF_E2E_API_KEY]",
    );
    expect(payloads.join("\n")).toContain(
      "suite [redacted:env:SUITE_ONLY_SECRET] sssf [redacted:env:SSSF_E2E_API_KEY]",
    );
    // Each new family is stored as its placeholder.
    for (const rule of ["aws-secret-key", "jwt", "private-key", "stripe-access-token", "base64:github-pat"]) {
      expect(payloads.join("\n"), rule).toContain(`[redacted:${rule}]`);
    }
    // The split key: both outputs hold a placeholder, neither holds a half of the key.
    const split = sb
      .query<{ payload: string }>(
        "SELECT payload FROM events WHERE type = 'tool_call' AND name LIKE 'cat creds%' ORDER BY started_at",
      )
      .map((row) => JSON.parse(row.payload).result as string);
    expect(split).toEqual(["creds: [redacted:github-pat]", "[redacted:github-pat] (end)\n"]);
    const halves = [
      { kind: "split key, first half", secret: SPLIT_KEY.slice(4, 20) },
      { kind: "split key, second half", secret: SPLIT_KEY.slice(20) },
    ];

    // Every byte stored: events.jsonl, prompts, raw_output.jsonl, envelope.json, code envelopes, the diff,
    // agent_map.json, the db (WAL folded in).
    const files = storedFiles();
    const names = files.map((file) => path.relative(sb.sessionDir(adwId), file));
    for (const expected of [
      "events.jsonl",
      "leaky/prompts/system.md",
      "leaky/prompts/user.md",
      "leaky/prompts/p02-work-1-initial.user.md",
      "leaky/prompts/p02-work-2-json_fix.user.md",
      "leaky/raw_output.jsonl",
      "leaky/envelope.json",
      "code/p03-test.envelope.json",
      "code/p04-changes.envelope.json",
      "changes/p04-changes.diff",
    ]) {
      expect(names, expected).toContain(expected);
    }
    expect(readFileSync(path.join(sb.sessionDir(adwId), "changes/p04-changes.diff"), "utf8")).toContain(
      "notes/leak.txt",
    );
    leaks.push(...leaksInFiles(files, SECRETS));
    // raw_output.jsonl keeps the agent's stdout line by line, each half in its own line (docs/trace.md).
    leaks.push(
      ...leaksInFiles(
        files.filter((file) => !file.endsWith("raw_output.jsonl")),
        halves,
      ),
    );
    // The tables, read back (text across SQLite's overflow pages is searched whole here).
    for (const table of [
      "sessions",
      "phases",
      "events",
      "envelopes",
      "gate_results",
      "processes",
      "agent_sessions",
    ]) {
      const rows = JSON.stringify(sb.query(`SELECT * FROM ${table}`));
      leaks.push(...leaksIn(`table ${table}`, rows, SECRETS), ...leaksIn(`table ${table}`, rows, halves));
    }

    // Every listing, plain and --json.
    for (const args of [
      ["events", adwId],
      ["events", adwId, "--json"],
      ["envelopes", adwId],
      ["envelopes", adwId, "--json"],
      ["phases", adwId],
      ["phases", adwId, "--json"],
      ["sessions"],
      ["sessions", "--json"],
    ]) {
      const listed = await sb.run(args, SSSF_ENV);
      expect(listed.code, args.join(" ")).toBe(0);
      const printed = listed.stdout + listed.stderr;
      leaks.push(
        ...leaksIn(`sssf ${args.join(" ")}`, printed, SECRETS),
        ...leaksIn(`sssf ${args.join(" ")}`, printed, halves),
      );
    }

    // The UI API.
    const ui = await createUiApp({
      dbPath: path.join(sb.dir, "adws/adw_data/sssf.db"),
      sessionsDir: path.join(sb.dir, "adws/adw_data/sessions"),
      clientDir: path.join(sb.dir, "no-client"),
    });
    try {
      const phaseIds = sb.query<{ id: string }>("SELECT id FROM phases ORDER BY number").map((row) => row.id);
      const urls = [
        "/api/sessions",
        `/api/sessions/${adwId}`,
        ...phaseIds.flatMap((id) => [
          `/api/sessions/${adwId}/phases/${id}`,
          `/api/sessions/${adwId}/phases/${id}/prompts`,
          `/api/sessions/${adwId}/phases/${id}/tool-calls`,
        ]),
      ];
      for (const url of urls) {
        const response = await ui.app.request(url);
        expect(response.status, url).toBe(200);
        const body = await response.text();
        leaks.push(...leaksIn(`GET ${url}`, body, SECRETS), ...leaksIn(`GET ${url}`, body, halves));
      }
    } finally {
      await ui.close();
    }
    expect(leaks).toEqual([]);
  }, 120_000);
});
