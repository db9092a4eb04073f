import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collect } from "../helpers/sandbox.js";
import { alive, waitFor } from "../helpers/wait.js";
import { ResumeWorld, replyTurn, writeTurn } from "./resume-world.js";

let world: ResumeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

interface Row {
  [key: string]: unknown;
}

/** Ends every process group the trace still lists as running (what a dead sssf leaves behind). */
function endLeftovers(w: ResumeWorld): void {
  for (const row of w.sb.query<{ pid: number }>("SELECT pid FROM processes WHERE status = 'running'")) {
    try {
      process.kill(-row.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Starts `three`, waits until `second` got its first send, and kills sssf with SIGKILL. */
async function crashInSecond(w: ResumeWorld, adwId: string): Promise<void> {
  const child = w.start(["run", "three", "make it", "--adw-id", adwId]);
  const done = collect(child);
  await waitFor(() => w.sends("second") === 1, 30_000, "the second agent's first send");
  child.kill("SIGKILL");
  await done;
  endLeftovers(w);
}

describe("sssf resume", () => {
  it("after SIGKILL in the second agent phase, replays the first and runs from the second", {
    timeout: 120_000,
  }, async () => {
    world = new ResumeWorld({
      first: [writeTurn("a.txt", "first done")],
      second: [{ hang: true }, writeTurn("b.txt", "second done")],
      third: [replyTurn("reviewed")],
    });
    const w = world;
    await crashInSecond(w, "aaaa0001");
    expect(w.phases("aaaa0001")).toEqual(["one:success", "two:running"]);

    const resumed = await w.run(["resume", "aaaa0001"]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/↺ 01 one \(agent first\) replayed from the trace/);
    // The first agent got no new request; the second continued; nothing was committed twice.
    expect(w.sends("first")).toBe(1);
    expect(w.sends("second")).toBe(2);
    expect(w.sends("third")).toBe(1);
    expect(w.phases("aaaa0001")).toEqual([
      "one:success+r",
      "two:interrupted",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    expect(w.commits("aaaa0001")).toEqual(["Resume test: second done"]);
    // The second agent was handed the first's envelope from the journal, as in the first attempt.
    const [, again] = w.sb.agent("second").sends();
    expect(again?.prompt).toContain("first done");
    const [session] = w.sb.query<Row>("SELECT status, accepted FROM sessions");
    expect(session).toEqual({ status: "success", accepted: 1 });
    for (const table of ["phases", "processes"])
      expect(w.sb.query<Row>(`SELECT id FROM ${table} WHERE status = 'running'`), table).toEqual([]);
    expect(w.sb.query<Row>("SELECT key FROM steps WHERE attempt = 2 AND replayed = 1 ORDER BY key")).toEqual([
      { key: "p1.one.call#1" },
      { key: "p1.one.phase#1" },
    ]);

    const listed = await w.run(["phases", "aaaa0001"]);
    expect(listed.stdout).toMatch(/one\s+agent\s+first\s+success \(replayed\)/);
    // sssf tail prints the whole session: the dead attempt's phase ends as interrupted, then the
    // resume's lines as the resume printed them, from its replayed phase to its last phase.
    const tail = await w.run(["tail", "aaaa0001", "--from-start"]);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).toMatch(/^✘ 02 two -\n {3}error: interrupted/m);
    const lines = resumed.stdout.split("\n");
    const from = lines.findIndex((line) => line.startsWith("↺ 01 one"));
    const to = lines.findIndex((line) => line.startsWith("ACCEPTED"));
    expect(from).toBeGreaterThan(0);
    expect(tail.stdout).toContain(`\n${lines.slice(from, to).join("\n")}\nACCEPTED aaaa0001`);
    // Finished and accepted: nothing to resume.
    const finished = await w.run(["resume", "aaaa0001"]);
    expect(finished.code).toBe(2);
    expect(finished.stderr).toContain("finished and was accepted");
    expect(finished.stderr).not.toMatch(/\n\s+at /);
  });

  it("a failed run resumes at its failed phase; a changed prompt re-runs from that phase, saying why", {
    timeout: 120_000,
  }, async () => {
    world = new ResumeWorld({
      first: [writeTurn("a.txt", "first done")],
      second: [writeTurn("b.txt", "second done"), writeTurn("b.txt", "second again")],
      third: [{ reply: JSON.stringify({ status: "fail", summary: "not good enough" }) }, replyTurn("ok now")],
    });
    const w = world;
    const failed = await w.run(["run", "three", "make it", "--adw-id", "bbbb0002"]);
    expect(failed.code).toBe(1);
    expect(w.phases("bbbb0002")).toEqual([
      "one:success",
      "two:success",
      "commit:success",
      "test:success",
      "three:fail",
    ]);

    // The second agent's prompt changes: its phase and everything after it run again.
    const user = path.join(w.dir, "adws/adw_data/prompt_engineering/second/user.md");
    writeFileSync(user, `${readFileSync(user, "utf8")}\nBe thorough.\n`);
    const resumed = await w.run(["resume", "bbbb0002"]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(w.sends("first")).toBe(1);
    expect(w.sends("second")).toBe(2);
    expect(w.sends("third")).toBe(2);
    expect(w.phases("bbbb0002")).toEqual([
      "one:success+r",
      "two:success",
      "commit:success",
      "test:success",
      "three:fail",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    const [why] = w.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE type = 'log' AND name LIKE 'resume runs from here:%'",
    );
    expect(why?.name).toContain("two: the inputs of call#1 changed since attempt 1");
    expect(why?.name).toContain("rendered prompt");
    expect(w.commits("bbbb0002")).toEqual(["Resume test: second done", "Resume test: second again"]);
  });

  it("an unchanged failed run replays everything before the failed phase, suite and commit included", {
    timeout: 120_000,
  }, async () => {
    world = new ResumeWorld({
      first: [writeTurn("a.txt", "first done")],
      second: [writeTurn("b.txt", "second done")],
      third: [{ reply: JSON.stringify({ status: "fail", summary: "flaky" }) }, replyTurn("fine")],
    });
    const w = world;
    expect((await w.run(["run", "three", "make it", "--adw-id", "cccc0003"])).code).toBe(1);
    const resumed = await w.run(["resume", "cccc0003"]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(w.phases("cccc0003")).toEqual([
      "one:success+r",
      "two:success+r",
      "commit:success+r",
      "test:success+r",
      "three:fail",
      "three:success",
    ]);
    expect([w.sends("first"), w.sends("second"), w.sends("third")]).toEqual([1, 1, 2]);
    expect(w.commits("cccc0003")).toEqual(["Resume test: second done"]);
    // The suite ran once: its log line is in the first attempt only.
    expect(
      w.sb.query<Row>("SELECT id FROM events WHERE type = 'log' AND name = 'test: passed'"),
    ).toHaveLength(1);
  });

  it("refuses a live run, an unknown id and a bad id with a clear error", { timeout: 120_000 }, async () => {
    world = new ResumeWorld({
      first: [{ hang: true }],
      second: [],
      third: [],
    });
    const w = world;
    const child = w.start(["run", "three", "make it", "--adw-id", "dddd0004"]);
    const done = collect(child);
    await waitFor(() => w.sends("first") === 1, 30_000, "the first agent's send");
    const live = await w.run(["resume", "dddd0004"]);
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/session dddd0004 is in use by another sssf process \(pid \d+\)/);
    child.kill("SIGTERM");
    await done;
    const pids = w.sb.query<{ pid: number }>("SELECT pid FROM processes");
    for (const { pid } of pids) await waitFor(() => !alive(pid), 10_000, "the agent to end");

    const unknown = await w.run(["resume", "eeee0005"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no session eeee0005");
    const bad = await w.run(["resume", "../etc"]);
    expect(bad.code).toBe(2);
    expect(`${unknown.stderr}${bad.stderr}`).not.toMatch(/\n\s+at /);
  });
});
