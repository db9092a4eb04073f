import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { collect, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import {
  type AgentTree,
  agentTree,
  hangingTurn,
  killTree,
  type Row,
  running,
  treeGone,
} from "./lifecycle-world.js";

// Unboxed (SSSF_SANDBOX=off): these tests read the host pids their agents write and signal them; test/sandbox covers the box.
process.env.SSSF_SANDBOX = "off";
// And without the lifeline: these tests are about the reaper, the second line, which ends the agents
// of a killed sssf that outlived it (test/sandbox/box.test.ts holds the lifeline to its second).
process.env.SSSF_LIFELINE = "off";

let sb: Sandbox;
let tree: AgentTree | null = null;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => {
  killTree(tree);
  tree = null;
  sb.cleanup();
});

/** Starts a run whose agent hangs with a grandchild and a setsid sleep; resolves once all are up. */
async function startHanging(adwId: string) {
  const escapedFile = path.join(sb.agentsDir, `${adwId}.setsid.pid`);
  sb.setup([{ name: "assistant", turns: [hangingTurn(escapedFile)] }]);
  const child = sb.start(["run", "prompt", "hang around", "--adw-id", adwId]);
  const done = collect(child);
  tree = await agentTree(sb, adwId, escapedFile);
  return { child, done, tree };
}

describe("a run whose sssf died", () => {
  it("after kill -9 in an agent phase, the next sssf sessions closes it as interrupted and ends its agents", async () => {
    const { child, done, tree } = await startHanging("dead0001");
    child.kill("SIGKILL");
    await done;

    const sessions = await sb.run(["sessions", "--json"]);
    expect(sessions.code).toBe(0);
    expect(sessions.stderr).toMatch(/session dead0001: its sssf \(pid \d+\) is gone; closed as interrupted/);
    const [session] = JSON.parse(sessions.stdout) as Row[];
    expect(session).toMatchObject({ adw_id: "dead0001", status: "interrupted", accepted: 0 });
    expect(String(session?.reason)).toMatch(
      /^interrupted: the sssf process that ran it \(pid \d+\) is gone; closed by sssf sessions/,
    );
    expect(session?.ended_at).not.toBeNull();
    expect(session?.duration_ms).toBeGreaterThanOrEqual(0);
    await treeGone(tree, "after the reaper");

    const phases = await sb.run(["phases", "dead0001", "--json"]);
    expect(phases.stderr).toBe("");
    const agentPhases = (JSON.parse(phases.stdout) as Row[]).filter((p) => p.kind === "agent");
    expect(agentPhases.map((p) => p.status)).toEqual(["interrupted"]);
    expect(agentPhases[0]?.ended_at).not.toBeNull();
    expect(String(agentPhases[0]?.error)).toContain("is gone");
    expect(sb.query<Row>("SELECT status, ended_at IS NOT NULL AS ended FROM processes")).toEqual([
      { status: "interrupted", ended: 1 },
    ]);
    expect(sb.query<Row>("SELECT COUNT(*) AS n FROM events WHERE ended_at IS NULL")).toEqual([{ n: 0 }]);
    const events = await sb.run(["events", "dead0001", "--type", "error"]);
    expect(events.stdout).toContain("interrupted: the sssf process that ran it");

    // The reaper wrote through events.jsonl: a rebuild keeps the session interrupted.
    const rebuilt = await sb.run(["db", "rebuild"]);
    expect(rebuilt.code).toBe(0);
    expect(sb.query<Row>("SELECT status FROM sessions")).toEqual([{ status: "interrupted" }]);
    expect(sb.query<Row>("SELECT status FROM phases WHERE kind = 'agent'")).toEqual([
      { status: "interrupted" },
    ]);
  });

  it("sssf kill of a run whose sssf is gone ends its agents and closes it; a second kill is a usage error", async () => {
    const { child, done, tree } = await startHanging("dead0002");
    child.kill("SIGKILL");
    await done;
    const killed = await sb.run(["kill", "dead0002"]);
    expect(killed.stderr).toBe("");
    expect(killed.code).toBe(0);
    expect(killed.stdout).toMatch(
      /dead0002: its sssf \(pid \d+\) was gone; \d+ leftover process\(es\) ended; closed as interrupted/,
    );
    await treeGone(tree, "after sssf kill");
    expect(sb.query<Row>("SELECT status, reason FROM sessions")).toEqual([
      { status: "interrupted", reason: expect.stringContaining("closed by sssf kill") },
    ]);
    const again = await sb.run(["kill", "dead0002"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /session dead0002 is not running \(it ended interrupted at .+\); nothing to kill/,
    );
    const unknown = await sb.run(["kill", "feedf00d"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no session feedf00d in the trace database");
  });
});

describe("what the reaper leaves alone", () => {
  it("never touches another host's run; a row without pid (older traces) is judged by the lock file", async () => {
    const { child, done, tree } = await startHanging("dead0003");
    child.kill("SIGKILL");
    await done;
    const lockFile = path.join(sb.sessionDir("dead0003"), ".lock");
    const deadLock = readFileSync(lockFile, "utf8");
    const write = (sql: string) => {
      const db = openRawSqlite(path.join(sb.dir, "adws/adw_data/sssf.db"));
      try {
        db.prepare(sql).run();
      } finally {
        db.close();
      }
    };
    const status = () => sb.query<Row>("SELECT status FROM sessions")[0]?.status;

    write("UPDATE sessions SET host = 'elsewhere.example'");
    expect((await sb.run(["sessions"])).stderr).toBe("");
    expect(status()).toBe("running");
    expect(running(tree.agent)).toBe(true);
    const elsewhere = await sb.run(["kill", "dead0003"]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/runs on host elsewhere\.example \(pid \d+\), not on this one/);

    // An older row: no pid, no host. A live lock holder keeps it running…
    write("UPDATE sessions SET pid = NULL, host = NULL");
    writeFileSync(lockFile, JSON.stringify({ pid: process.pid, host: hostname(), started_at: "x" }));
    expect((await sb.run(["phases", "dead0003"])).stderr).toBe("");
    expect(status()).toBe("running");
    expect(running(tree.agent)).toBe(true);

    // …a dead one does not: closed, and its recorded agent group ended.
    writeFileSync(lockFile, deadLock);
    const reaped = await sb.run(["phases", "dead0003"]);
    expect(reaped.stderr).toMatch(/session dead0003: its sssf is gone; closed as interrupted/);
    expect(reaped.stdout).toContain("interrupted");
    expect(status()).toBe("interrupted");
    await waitFor(() => !running(tree.agent) && !running(tree.grandchild), 15_000, "the agent group gone");
  });
});

describe("a dead run whose session folder is not here", () => {
  it("is left alone by read commands (a cluster worker's run moves on), and sssf kill closes it", async () => {
    const { child, done, tree } = await startHanging("dead0004");
    child.kill("SIGKILL");
    await done;
    // As a worker's run on a shared trace: its folder is on the worker, not in this checkout.
    renameSync(sb.sessionDir("dead0004"), path.join(sb.agentsDir, "dead0004-elsewhere"));
    const status = () => sb.query<Row>("SELECT status FROM sessions")[0]?.status;
    for (const command of [["sessions"], ["phases", "dead0004"], ["ps"]]) {
      const result = await sb.run(command);
      expect(result.stderr, command.join(" ")).toBe("");
      expect(status(), command.join(" ")).toBe("running");
    }
    const killed = await sb.run(["kill", "dead0004"]);
    expect(killed.stderr).toBe("");
    expect(killed.code).toBe(0);
    expect(killed.stdout).toMatch(
      /dead0004: its sssf \(pid \d+\) was gone; \d+ leftover process\(es\) ended/,
    );
    expect(status()).toBe("interrupted");
    await treeGone(tree, "after sssf kill");
  });
});

describe("sssf kill of a live run", () => {
  it("signals its sssf from another process: the run finalizes (exit 143) and nothing of its agent is left", async () => {
    const { done, tree } = await startHanging("live0001");
    const killed = await sb.run(["kill", "live0001"]);
    expect(killed.code).toBe(0);
    expect(killed.stdout).toMatch(/sent SIGTERM to sssf \(pid \d+\) running live0001/);
    expect(killed.stdout).toMatch(/live0001: fail \(interrupted by SIGTERM\)/);
    const result = await done;
    expect(result.code).toBe(143);
    expect(result.stderr).toContain("SIGTERM received");
    await treeGone(tree, "after sssf kill");
    const [session] = sb.query<Row>("SELECT status, accepted, ended_at FROM sessions");
    expect(session).toMatchObject({ status: "fail", accepted: 0 });
    expect(session?.ended_at).not.toBeNull();
    expect(sb.query<Row>("SELECT status FROM phases WHERE kind = 'agent'")).toEqual([{ status: "fail" }]);
    expect(sb.query<Row>("SELECT status FROM processes")).toEqual([{ status: "killed" }]);
  });
});
