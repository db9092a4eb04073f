import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir, userInfo } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pendingRequests, requestFile, writeRequest } from "../../src/approval/approval-files.js";
import { cliPath, collect, Sandbox } from "../helpers/sandbox.js";
import { alive, waitFor } from "../helpers/wait.js";

// Every test runs the built CLI (`npm run build` first) in a scratch repo with a repo-local workflow
// whose engineer phase asks; the answers come from a second `sssf` process, as from another terminal.

interface Row {
  [key: string]: unknown;
}

const ASK_WORKFLOW = `import { defineWorkflow } from "sssf";

export default defineWorkflow({
  name: "ask",
  description: "Ask the engineer, then finish on the answer",
  agents: [],
  async run(run) {
    const answer = await run.engineer("approve-verify", { description: "Go on despite the risks?" }, (phase) =>
      phase.ask("verify reported 1 CRITICAL risk: toggle throws. Proceed?", { risks: ["CRITICAL: toggle throws"] }),
    );
    if (!answer.approved) return run.finish({ accepted: false, reason: \`rejected by \${answer.by}: \${answer.reason}\` });
    await run.engineer("after", { description: "Runs only when approved" }, (phase) => phase.log("went on"));
    return run.finish({ accepted: true, reason: \`approved by \${answer.by}\` });
  },
});
`;

const me = `${userInfo().username}@${hostname()}`;

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
  sb.setup([{ name: "assistant", turns: [] }]);
  mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
  writeFileSync(path.join(sb.dir, "adws/adw_ask.ts"), ASK_WORKFLOW);
});
afterEach(() => sb.cleanup());

const approvals = (adwId: string) => path.join(sb.sessionDir(adwId), "approvals");
const waiting = (adwId: string) => () => pendingRequests(approvals(adwId)).length > 0;
const logs = (adwId: string) =>
  sb.query<Row>(
    "SELECT name, ok, payload FROM events WHERE adw_id = ? AND type = 'log' AND phase_id IS NOT NULL",
    adwId,
  );

describe("sssf approve / reject / --yes through the built CLI", () => {
  it("a run waits for sssf approve from another process, then goes on and exits 0", async () => {
    const child = sb.start(["run", "ask", "ship the toggle", "--adw-id", "a1b2c3d4"]);
    const done = collect(child);
    await waitFor(waiting("a1b2c3d4"));
    await new Promise((r) => setTimeout(r, 400));
    const approved = await sb.run(["approve", "a1b2c3d4", "--reason", "the toggle is behind a flag"]);
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe(
      `approved phase 1 approve-verify of session a1b2c3d4 as ${me} (the toggle is behind a flag)\n` +
        "   question: verify reported 1 CRITICAL risk: toggle throws. Proceed?\n",
    );
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "waiting for the engineer: verify reported 1 CRITICAL risk: toggle throws. Proceed?",
    );
    expect(result.stdout).toContain("approve: sssf approve a1b2c3d4\n");
    expect(result.stdout).toContain('reject: sssf reject a1b2c3d4 --reason "…"\n');
    expect(result.stdout).toMatch(
      new RegExp(`approved by ${me} after \\d+\\.\\d s: the toggle is behind a flag`),
    );
    expect(result.stdout).toContain(`ACCEPTED a1b2c3d4: approved by ${me}`);

    const events = logs("a1b2c3d4");
    expect(events.map((e) => e.name)).toEqual([
      "waiting for approval: verify reported 1 CRITICAL risk: toggle throws. Proceed?",
      `approved by ${me}: the toggle is behind a flag`,
      "went on",
    ]);
    expect(JSON.parse(String(events[0]?.payload))).toMatchObject({
      details: { risks: ["CRITICAL: toggle throws"] },
      approve: "sssf approve a1b2c3d4",
    });
    const answer = JSON.parse(String(events[1]?.payload));
    expect(answer).toMatchObject({ approved: true, by: me, reason: "the toggle is behind a flag" });
    expect(answer.waited_ms).toBeGreaterThanOrEqual(400);
    const [phase] = sb.query<Row>("SELECT status, duration_ms FROM phases WHERE number = 1");
    expect(phase?.status).toBe("success");
    expect(Number(phase?.duration_ms)).toBeGreaterThanOrEqual(answer.waited_ms);
    expect(readdirSync(approvals("a1b2c3d4"))).toEqual([]);

    // Answered: nothing waits any more.
    const again = await sb.run(["approve", "a1b2c3d4"]);
    expect(again).toEqual({
      code: 2,
      stdout: "",
      stderr: "sssf: session a1b2c3d4 has no phase waiting for approval\n",
    });
  });

  it("sssf reject --reason reaches the workflow as approved:false with the reason; without --reason it is a usage error", async () => {
    // Started from another folder with --cwd: the printed commands say where the session is.
    const elsewhere = mkdtempSync(path.join(tmpdir(), "sssf-elsewhere-"));
    const child = spawn(
      process.execPath,
      [cliPath, "run", "ask", "go", "--adw-id", "feed0001", "--cwd", sb.dir],
      {
        cwd: elsewhere,
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const done = collect(child);
    try {
      await waitFor(waiting("feed0001"));
      const bare = await sb.run(["reject", "feed0001"]);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toBe(
        'sssf: sssf reject needs --reason "…": the workflow sees why it was rejected\n',
      );
      const blank = await sb.run(["reject", "feed0001", "--reason", "  "]);
      expect(blank.code).toBe(2);
      const rejected = await sb.run(["reject", "feed0001", "--reason", "the toggle must not throw"]);
      expect(rejected.code).toBe(0);
      expect(rejected.stdout).toMatch(/^rejected phase 1 approve-verify of session feed0001 as /);
      const result = await done;
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(`approve: sssf approve feed0001 --cwd ${sb.dir}\n`);
      expect(result.stdout).toContain(`NOT ACCEPTED feed0001: rejected by ${me}: the toggle must not throw`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    expect(sb.query<Row>("SELECT status, reason FROM sessions")).toEqual([
      { status: "fail", reason: `rejected by ${me}: the toggle must not throw` },
    ]);
    const events = logs("feed0001");
    expect(events.map((e) => [e.name, e.ok])).toEqual([
      ["waiting for approval: verify reported 1 CRITICAL risk: toggle throws. Proceed?", null],
      [`rejected by ${me}: the toggle must not throw`, 0],
    ]);
    expect(sb.query<Row>("SELECT name FROM phases")).toEqual([{ name: "approve-verify" }]);
  });

  it("--yes never waits", async () => {
    const started = Date.now();
    const result = await sb.run(["run", "ask", "go", "--adw-id", "0ce0ce01", "--yes"]);
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.stdout).toContain("approved by --yes: verify reported");
    expect(result.stdout).not.toContain("sssf approve");
    expect(existsSync(approvals("0ce0ce01"))).toBe(false);
    const [answer] = logs("0ce0ce01");
    expect(JSON.parse(String(answer?.payload))).toMatchObject({
      approved: true,
      by: "--yes",
      reason: "pre-approved with --yes",
      waited_ms: 0,
    });
  });

  it("SIGTERM while waiting ends the session fail, removes the request and leaves no process", async () => {
    const child = sb.start(["run", "ask", "go", "--adw-id", "dead0001"]);
    const done = collect(child);
    await waitFor(waiting("dead0001"));
    const pid = child.pid ?? 0;
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(143);
    expect(result.stderr).toContain("SIGTERM received");
    expect(alive(pid)).toBe(false);
    expect(readdirSync(approvals("dead0001"))).toEqual([]);
    expect(existsSync(path.join(sb.sessionDir("dead0001"), ".lock"))).toBe(false);
    const [session] = sb.query<Row>("SELECT status, accepted, reason FROM sessions");
    expect(session).toMatchObject({ status: "fail", accepted: 0 });
    expect(String(session?.reason)).toContain("SIGTERM");
    const [phase] = sb.query<Row>("SELECT status, error, ended_at FROM phases");
    expect(phase?.status).toBe("fail");
    expect(String(phase?.error)).toMatch(/^interrupted by SIGTERM while waiting for approval/);
    expect(phase?.ended_at).not.toBeNull();
    expect(logs("dead0001").map((e) => e.name)).toEqual([
      "waiting for approval: verify reported 1 CRITICAL risk: toggle throws. Proceed?",
      expect.stringMatching(/^stopped waiting for approval: interrupted by SIGTERM/),
    ]);
    const late = await sb.run(["approve", "dead0001"]);
    expect(late.code).toBe(2);
    expect(late.stderr).toBe("sssf: session dead0001 has no phase waiting for approval\n");
    // A run of another host (a cluster worker's) has no session folder here, only its rows in the trace.
    rmSync(sb.sessionDir("dead0001"), { recursive: true });
    const elsewhere = await sb.run(["approve", "dead0001"]);
    expect(elsewhere).toMatchObject({
      code: 2,
      stderr: "sssf: session dead0001 has no phase waiting for approval (the trace shows it fail)\n",
    });
  });

  it("errors: unknown session, bad id, already answered, a dead asker, several waiting phases", async () => {
    const unknown = await sb.run(["approve", "nope1234"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      `sssf: no session nope1234 in the trace database or in ${path.join(sb.dir, "adws/adw_data/sessions")}\n`,
    );
    const bad = await sb.run(["reject", "../x", "--reason", "r"]);
    expect(bad).toMatchObject({ code: 2, stderr: 'sssf: "../x" is not a session id\n' });

    // Requests as a waiting run writes them; this test process plays the run that is still alive.
    const dir = approvals("c0ffee01");
    const request = (phase: string, number: number, pid = process.pid) => ({
      adw_id: "c0ffee01",
      phase_id: `c0ffee01-p0${number}`,
      phase,
      phase_number: number,
      question: `${phase}?`,
      details: {},
      asked_at: new Date(Date.now() + number).toISOString(),
      pid,
      host: hostname(),
    });
    writeRequest(requestFile(dir, "c0ffee01-p01"), request("first", 1));
    writeRequest(requestFile(dir, "c0ffee01-p02"), request("second", 2));
    const ambiguous = await sb.run(["approve", "c0ffee01"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe(
      "sssf: session c0ffee01 has 2 phases waiting for approval (1 first, 2 second): pass --phase <name|number>\n",
    );
    const wrong = await sb.run(["approve", "c0ffee01", "--phase", "third"]);
    expect(wrong.code).toBe(2);
    const first = await sb.run(["approve", "c0ffee01", "--phase", "2"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("approved phase 2 second of session c0ffee01");
    const twice = await sb.run(["reject", "c0ffee01", "--phase", "second", "--reason", "changed my mind"]);
    expect(twice).toMatchObject({
      code: 2,
      stderr: "sssf: session c0ffee01: phase 2 second is already answered\n",
    });

    // A request whose run died without cleaning up is not waiting; it is removed.
    rmSync(dir, { recursive: true });
    const gonePid = 2 ** 22 + 11;
    writeRequest(requestFile(dir, "c0ffee01-p03"), request("third", 3, gonePid));
    const stale = await sb.run(["approve", "c0ffee01"]);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toBe(
      `sssf: session c0ffee01 has no phase waiting for approval (the run that asked, pid ${gonePid}, has exited)\n`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
