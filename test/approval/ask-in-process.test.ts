import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decide, recordDecision } from "../../src/api/decide.js";
import { defineWorkflow, type EngineerAnswer } from "../../src/api/run-api.js";
import {
  answerFile,
  approvalsDir,
  pendingRequests,
  writeAnswerOnce,
} from "../../src/approval/approval-files.js";
import { waitForFile } from "../../src/approval/approval-wait.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import { runWorkflow } from "../../src/library.js";
import { createRepo, type Repo } from "../engine/workflow-fixture.js";

interface Row {
  [key: string]: unknown;
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Asks once, and finishes accepted only when approved; the answer is kept for the test. */
function askingWorkflow(seen: EngineerAnswer[]) {
  return defineWorkflow({
    name: "ask",
    description: "Ask the engineer once",
    agents: [],
    async run(run) {
      const answer = await run.engineer("approve", { description: "Ask" }, async (phase) => {
        const report = MarkdownResult.schema.parse({ ...MarkdownResult.example, risks: [] });
        recordDecision(phase, decide(report));
        return phase.ask("Ship it?", { risk: "CRITICAL: toggle throws" });
      });
      seen.push(answer);
      return run.finish({
        accepted: answer.approved,
        reason: answer.approved ? `approved by ${answer.by}` : `rejected by ${answer.by}: ${answer.reason}`,
      });
    },
  });
}

let repo: Repo;
beforeEach(() => {
  repo = createRepo({ assistant: [] });
});
afterEach(() => repo.cleanup());

const sessionApprovals = (adwId: string) => approvalsDir(path.join(repo.config.sessionsDir, adwId));

describe("phase.ask in process", () => {
  it("with yes, approves at once as --yes and traces the answer", async () => {
    const seen: EngineerAnswer[] = [];
    const outcome = await runWorkflow({
      workflow: askingWorkflow(seen),
      request: "go",
      config: repo.config,
      adwId: "yes00001",
      yes: true,
    });
    expect(outcome.exitCode).toBe(0);
    expect(seen).toEqual([
      { approved: true, reason: "pre-approved with --yes", by: "--yes", at: expect.any(String) },
    ]);
    expect(existsSync(sessionApprovals("yes00001"))).toBe(false);
    const logs = repo.query<Row>(
      "SELECT name, ok, payload FROM events WHERE type = 'log' AND phase_id IS NOT NULL",
    );
    expect(logs.map((l) => l.name)).toEqual(["decision: proceed (success)", "approved by --yes: Ship it?"]);
    expect(JSON.parse(String(logs[1]?.payload))).toMatchObject({
      question: "Ship it?",
      details: { risk: "CRITICAL: toggle throws" },
      approved: true,
      by: "--yes",
      waited_ms: 0,
    });
  });

  it("waits for the answer file, returns it, and removes the request", async () => {
    const seen: EngineerAnswer[] = [];
    const running = runWorkflow({
      workflow: askingWorkflow(seen),
      request: "go",
      config: repo.config,
      adwId: "wait0001",
    });
    const dir = sessionApprovals("wait0001");
    const [request] = await waitFor(() => {
      const pending = pendingRequests(dir);
      return pending.length > 0 ? pending : undefined;
    });
    expect(request).toMatchObject({
      adw_id: "wait0001",
      phase: "approve",
      phase_number: 1,
      question: "Ship it?",
      details: { risk: "CRITICAL: toggle throws" },
      pid: process.pid,
    });
    await new Promise((r) => setTimeout(r, 300));
    const at = new Date().toISOString();
    expect(
      writeAnswerOnce(answerFile(dir, request?.phase_id ?? ""), {
        approved: false,
        reason: "not today",
        by: "ana@box",
        at,
      }),
    ).toBe(true);
    const outcome = await running;
    expect(outcome).toMatchObject({ exitCode: 1, reason: "rejected by ana@box: not today" });
    expect(seen).toEqual([{ approved: false, reason: "not today", by: "ana@box", at }]);
    expect(readdirSync(dir)).toEqual([]);
    const [phase] = outcome.phases;
    expect(phase?.status).toBe("success");
    expect(phase?.duration_ms).toBeGreaterThanOrEqual(300);
    const logs = repo.query<Row>(
      "SELECT name, ok, payload FROM events WHERE type = 'log' AND phase_id IS NOT NULL",
    );
    expect(logs.map((l) => l.name)).toEqual([
      "decision: proceed (success)",
      "waiting for approval: Ship it?",
      "rejected by ana@box: not today",
    ]);
    expect(JSON.parse(String(logs[1]?.payload))).toMatchObject({
      // The test runs elsewhere than the repo, so the hint says where the session is.
      approve: `sssf approve wait0001 --cwd ${repo.dir}`,
      reject: `sssf reject wait0001 --cwd ${repo.dir} --reason "…"`,
    });
    const answered = JSON.parse(String(logs[2]?.payload));
    expect(logs[2]?.ok).toBe(0);
    expect(answered).toMatchObject({ approved: false, reason: "not today", by: "ana@box" });
    expect(answered.waited_ms).toBeGreaterThanOrEqual(300);
  });

  it("an abort while waiting rejects as interrupted, fails the phase and leaves no request", async () => {
    const controller = new AbortController();
    const running = runWorkflow({
      workflow: askingWorkflow([]),
      request: "go",
      config: repo.config,
      adwId: "stop0001",
      signal: controller.signal,
    });
    const dir = sessionApprovals("stop0001");
    await waitFor(() => (pendingRequests(dir).length > 0 ? true : undefined));
    controller.abort("SIGTERM");
    const outcome = await running;
    expect(outcome.exitCode).toBe(1);
    expect(outcome.session.status).toBe("fail");
    expect(outcome.reason).toContain("SIGTERM");
    expect(outcome.phases[0]).toMatchObject({ status: "fail" });
    expect(outcome.phases[0]?.error).toMatch(
      /^interrupted by SIGTERM while waiting for approval \(\d+\.\d s\): Ship it\?$/,
    );
    expect(readdirSync(dir)).toEqual([]);
    const events = repo.query<Row>(
      "SELECT type, name, ok FROM events WHERE phase_id IS NOT NULL ORDER BY started_at, rowid",
    );
    expect(events.map((e) => e.type)).toEqual(["phase_start", "log", "log", "log", "error", "phase_end"]);
    expect(String(events[3]?.name)).toMatch(/^stopped waiting for approval: interrupted by SIGTERM/);
    expect(repo.query<Row>("SELECT status FROM phases")).toEqual([{ status: "fail" }]);
  });
});

describe("waitForFile", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "sssf-wait-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("finds a file that is already there, or appears later (watch or poll)", async () => {
    const file = path.join(dir, "a.answer.json");
    writeFileSync(file, "{}");
    const signal = new AbortController().signal;
    expect(await waitForFile(file, { signal })).toBe("found");
    const later = path.join(dir, "b.answer.json");
    const waiting = waitForFile(later, { signal, pollMs: 50 });
    setTimeout(() => writeFileSync(later, "{}"), 100);
    expect(await waiting).toBe("found");
  });

  it("the poll finds the file when the watched folder is replaced under the watcher", async () => {
    const sub = path.join(dir, "approvals");
    mkdirSync(sub);
    const file = path.join(sub, "c.answer.json");
    const waiting = waitForFile(file, { signal: new AbortController().signal, pollMs: 50 });
    rmSync(sub, { recursive: true });
    mkdirSync(sub);
    setTimeout(() => writeFileSync(file, "{}"), 100);
    expect(await waiting).toBe("found");
  });

  it("resolves aborted at once on abort, before or during the wait", async () => {
    const file = path.join(dir, "never.json");
    const controller = new AbortController();
    const waiting = waitForFile(file, { signal: controller.signal });
    controller.abort("SIGINT");
    expect(await waiting).toBe("aborted");
    expect(await waitForFile(file, { signal: controller.signal })).toBe("aborted");
  });
});

describe("phase.ask with a host's second door (a cluster's durable promise)", () => {
  it("a second door that fails (its network gone) does not end the wait: the local answer file still answers", async () => {
    const seen: EngineerAnswer[] = [];
    const rejected: unknown[] = [];
    const onUnhandled = (reason: unknown) => rejected.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const keys: string[] = [];
    try {
      const running = runWorkflow({
        workflow: askingWorkflow(seen),
        request: "go",
        config: repo.config,
        adwId: "door0001",
        host: {
          answerVia: { restate_ingress: "http://127.0.0.1:1" },
          remoteAnswer: (question) => {
            keys.push(question.key);
            return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1"));
          },
        },
      });
      const dir = sessionApprovals("door0001");
      const [request] = await waitFor(() => {
        const pending = pendingRequests(dir);
        return pending.length > 0 ? pending : undefined;
      });
      writeAnswerOnce(answerFile(dir, String(request?.phase_id)), {
        approved: true,
        reason: "",
        by: "here@host",
        at: new Date().toISOString(),
      });
      const outcome = await running;
      await new Promise((r) => setTimeout(r, 50));
      expect(outcome.exitCode).toBe(0);
      expect(seen.map((a) => a.by)).toEqual(["here@host"]);
      expect(keys).toEqual(["p1.approve.ask#1"]);
      expect(rejected).toEqual([]);
      const [waiting] = repo.query<Row>(
        "SELECT payload FROM events WHERE name LIKE 'waiting for approval:%'",
      );
      expect(JSON.parse(String(waiting?.payload))).toMatchObject({
        restate_ingress: "http://127.0.0.1:1",
        answer_step: "p1.approve.ask#1",
      });
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
