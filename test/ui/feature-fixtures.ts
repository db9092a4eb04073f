import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { EnvelopeRow, EventRow, EventType, TraceRecord } from "../../src/trace/events.js";
import { at, eventRow, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import type { TraceWorld } from "./ui-fixtures.js";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

/** Runs git in `cwd` and returns its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();
}

/** A repo with a base commit and a run branch holding two commits; returns shas and the paths. */
export function makeRepo(dir: string, adwId: string, bigFile = 0) {
  const repo = path.join(dir, "repo");
  mkdirSync(repo);
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "app.ts"), "export const a = 1;\nexport const b = 2;\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "base");
  const base = git(repo, "rev-parse", "HEAD");
  const branch = `sssf/build/${adwId}`;
  git(repo, "checkout", "-q", "-b", branch);
  writeFileSync(path.join(repo, "app.ts"), "export const a = 1;\nexport const b = 3;\n");
  writeFileSync(path.join(repo, "secret.env"), "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123456789\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "change b\n\nand add the env");
  const first = git(repo, "rev-parse", "HEAD");
  writeFileSync(
    path.join(repo, "new.ts"),
    `${"export const line = '<script>alert(1)</script>';\n".repeat(3)}`,
  );
  if (bigFile > 0) writeFileSync(path.join(repo, "big.txt"), `${"x".repeat(99)}\n`.repeat(bigFile));
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "add new.ts");
  const second = git(repo, "rev-parse", "HEAD");
  git(repo, "checkout", "-q", "main");
  return { repo, base, branch, first, second };
}

/** A trace event row of a type `events.ts` may not list yet (`agent_text`, `tool_start`). */
export function liveEvent(
  adwId: string,
  id: string,
  startedAt: string,
  type: string,
  payload: unknown,
  phaseId: string,
): EventRow {
  return eventRow(adwId, id, startedAt, {
    type: type as EventType,
    name: type,
    phase_id: phaseId,
    agent: "builder",
    payload: JSON.stringify(payload),
  });
}

/** An envelope row of `phaseId` with the given output type and parsed envelope. */
export function envelope(
  adwId: string,
  id: string,
  phaseId: string,
  outputType: string,
  value: unknown,
  created: string,
): EnvelopeRow {
  return {
    id,
    adw_id: adwId,
    phase_id: phaseId,
    agent: "code",
    attempt: 1,
    reason: "initial",
    output_type: outputType,
    valid: 1,
    status: "success",
    envelope_json: JSON.stringify(value),
    raw_text: JSON.stringify(value),
    errors: "[]",
    created_at: created,
    accepted: 1,
  };
}

export const BASE = Date.parse("2026-05-01T10:00:00Z");

/**
 * A finished build run with a real branch in `repo`: an agent phase, a code phase that saved a diff
 * (under the session's `changes/`) and committed twice, a test phase whose suite saved a log, and an
 * engineer phase. Returns its ids.
 */
export function seedBuildRun(world: TraceWorld, adwId: string, repo: ReturnType<typeof makeRepo>) {
  const session = path.join(world.sessionsDir, adwId);
  mkdirSync(path.join(session, "changes"), { recursive: true });
  mkdirSync(path.join(session, "suites"), { recursive: true });
  const diffPath = path.join(session, "changes", "p02-commit.diff");
  writeFileSync(
    diffPath,
    "diff --git a/app.ts b/app.ts\n--- a/app.ts\n+++ b/app.ts\n@@ -1,2 +1,2 @@\n export const a = 1;\n-export const b = 2;\n+export const b = 3;\n" +
      "token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
  );
  const logPath = path.join(session, "suites", "p03-test.log");
  writeFileSync(
    logPath,
    "running 3 tests\nok 1\nok 2\nnot ok 3 <b>bold</b>\nGITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
  );
  const p1 = phaseRow(adwId, 1, at(BASE, 1000), {
    name: "build",
    status: "success",
    ended_at: at(BASE, 61_000),
    duration_ms: 60_000,
    input_tokens: 12_000,
    output_tokens: 900,
    cost_usd: 0.12,
  });
  const p2 = phaseRow(adwId, 2, at(BASE, 62_000), {
    name: "commit",
    kind: "code",
    owner: "code",
    status: "success",
    ended_at: at(BASE, 63_000),
    duration_ms: 1000,
  });
  const p3 = phaseRow(adwId, 3, at(BASE, 64_000), {
    name: "test",
    kind: "code",
    owner: "code",
    status: "fail",
    ended_at: at(BASE, 70_000),
    duration_ms: 6000,
  });
  const records: TraceRecord[] = [
    {
      table: "sessions",
      row: sessionRow(adwId, at(BASE, 0), {
        workflow: "build",
        request: "change b",
        status: "fail",
        ended_at: at(BASE, 71_000),
        duration_ms: 71_000,
        input_tokens: 12_000,
        output_tokens: 900,
        cost_usd: 0.12,
        cwd: repo.repo,
        checkout: repo.repo,
        worktree: null,
        branch: repo.branch,
        base_ref: repo.base,
      }),
    },
    { table: "phases", row: p1 },
    { table: "phases", row: p2 },
    { table: "phases", row: p3 },
    {
      table: "agent_sessions",
      row: {
        adw_id: adwId,
        agent: "builder",
        session_id: `s-${adwId}`,
        model: "claude-sonnet-4",
        coding_agent: "claude-code",
        sends: 1,
        created_at: at(BASE, 1000),
        updated_at: at(BASE, 61_000),
      },
    },
    {
      table: "events",
      row: eventRow(adwId, `${adwId}-tool1`, at(BASE, 2000), {
        phase_id: p1.id,
        type: "tool_call",
        name: "bash: grep 50%_done src",
        agent: "builder",
        ok: 1,
        payload: JSON.stringify({
          tool: "bash",
          args: { command: "grep -rn 'needle_in_args' src" },
          result: "src/a.ts:1",
        }),
      }),
    },
    {
      table: "events",
      row: eventRow(adwId, `${adwId}-tool2`, at(BASE, 3000), {
        phase_id: p1.id,
        type: "tool_call",
        name: "read: app.ts",
        agent: "builder",
        ok: 1,
        payload: JSON.stringify({ tool: "read", args: { path: "app.ts" }, result: "export const b = 2;" }),
      }),
    },
    {
      table: "envelopes",
      row: envelope(
        adwId,
        `${adwId}-changes`,
        p2.id,
        "ChangesOutput",
        {
          status: "success",
          summary: "1 file changed",
          files: [{ path: "app.ts", change: "modified" }],
          diff_path: diffPath,
          diff_stat: " app.ts | 2 +-",
        },
        at(BASE, 62_500),
      ),
    },
    ...[repo.first, repo.second].map(
      (sha, i): TraceRecord => ({
        table: "events",
        row: eventRow(adwId, `${adwId}-commit${i}`, at(BASE, 62_600 + i), {
          phase_id: p2.id,
          name: `committed ${sha.slice(0, 12)}: ${i === 0 ? "change b" : "add new.ts"}`,
          ok: 1,
          payload: JSON.stringify({
            commit: sha,
            message: i === 0 ? "change b\n\nand add the env" : "add new.ts",
            files: i === 0 ? ["app.ts", "secret.env"] : ["new.ts"],
          }),
        }),
      }),
    ),
    {
      table: "envelopes",
      row: envelope(
        adwId,
        `${adwId}-verify`,
        p3.id,
        "VerifyOutput",
        {
          status: "fail",
          summary: "test: failed (exit 1)",
          suite: "test",
          command: ["npm", "test"],
          exit_code: 1,
          passed: false,
          duration_ms: 5000,
          output_tail: "ok 2\nnot ok 3 <b>bold</b>\n",
          log_path: logPath,
        },
        at(BASE, 69_000),
      ),
    },
  ];
  world.write(...records);
  return { session, diffPath, logPath, phases: [p1, p2, p3] };
}

/** Writes a pending approval request for `phaseId` as a waiting run (this process) would. */
export function writeApprovalRequest(
  world: TraceWorld,
  adwId: string,
  phaseId: string,
  question: string,
): string {
  const dir = path.join(world.sessionsDir, adwId, "approvals");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `${phaseId}.request.json`),
    JSON.stringify({
      adw_id: adwId,
      phase_id: phaseId,
      phase: "approve-plan",
      phase_number: 2,
      question,
      details: { plan: "specs/plan.md" },
      asked_at: new Date().toISOString(),
      pid: process.pid,
      host: hostname(),
    }),
  );
  return dir;
}
