import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { alive, waitFor } from "../helpers/wait.js";

interface Row {
  [key: string]: unknown;
}

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("process control", () => {
  it("SIGTERM mid-call kills the agent's whole process group and finalizes the session as fail", async () => {
    sb.setup([{ name: "assistant", turns: [{ spawn_grandchild: true, hang: true }] }]);
    // The grandchild writes its own pid: outside the box, where pids are the host's (test/sandbox covers the box).
    const child = sb.start(["run", "prompt", "hang around", "--adw-id", "deadbeef"], { SSSF_SANDBOX: "off" });
    const done = collect(child);
    const pidFile = path.join(sb.sessionDir("deadbeef"), "assistant/exec_sessions/grandchild.pid");
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const grandchild = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(grandchild)).toBe(true);
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(143);
    expect(result.stderr).toContain("SIGTERM");
    await waitFor(() => !alive(grandchild), 5000);
    const [proc] = sb.query<Row>("SELECT pid, status FROM processes");
    expect(alive(Number(proc?.pid))).toBe(false);
    const [session] = sb.query<Row>("SELECT status, accepted, reason, ended_at FROM sessions");
    expect(session).toMatchObject({ status: "fail", accepted: 0 });
    expect(String(session?.reason)).toContain("SIGTERM");
    expect(session?.ended_at).not.toBeNull();
    expect(existsSync(path.join(sb.sessionDir("deadbeef"), ".lock"))).toBe(false);
  });

  it("refuses a second process on the same adw_id while the first runs, and never clobbers it", async () => {
    sb.setup([
      { name: "assistant", turns: [{ delay_ms: 2500, reply: envelopeJson({ summary: "slow but fine" }) }] },
    ]);
    const first = sb.start(["run", "prompt", "slow", "--adw-id", "cafe1234"]);
    const firstDone = collect(first);
    await waitFor(() => sb.agent("assistant").sends().length === 1);
    const second = await sb.run(["run", "prompt", "intruder", "--adw-id", "cafe1234"]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/session cafe1234 is in use by another sssf process \(pid \d+\)/);
    const result = await firstDone;
    expect(result.code).toBe(0);
    expect(sb.query<Row>("SELECT status, request FROM sessions")).toEqual([
      { status: "success", request: "slow" },
    ]);
    expect(sb.agent("assistant").sends()).toHaveLength(1);
  });

  it("keeps running and finalizes when its output pipe closes early (sssf run … | head)", async () => {
    sb.setup([
      { name: "assistant", turns: [{ delay_ms: 300, reply: envelopeJson({ summary: "done anyway" }) }] },
    ]);
    const child = sb.start(["run", "prompt", "go"]);
    child.stdout?.once("data", () => child.stdout?.destroy());
    const result = await collect(child);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(sb.query<Row>("SELECT status, reason FROM sessions")).toEqual([
      { status: "success", reason: "done anyway" },
    ]);
  });

  it("takes over a lock left by a dead process", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: envelopeJson({ summary: "ok" }) }] }]);
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { hostname } = await import("node:os");
    mkdirSync(sb.sessionDir("0badf00d"), { recursive: true });
    writeFileSync(
      path.join(sb.sessionDir("0badf00d"), ".lock"),
      JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), started_at: "x" }),
    );
    const result = await sb.run(["run", "prompt", "go", "--adw-id", "0badf00d"]);
    expect(result.code).toBe(0);
  });

  it("an agent that prints nothing is killed by the idle timeout", async () => {
    sb.setup([{ name: "assistant", turns: [{ hang: true }], extra: { timeouts: { idle_seconds: 1 } } }]);
    const result = await sb.run(["run", "prompt", "go"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/idle/);
    expect(sb.query<Row>("SELECT status FROM processes")).toEqual([{ status: "timeout" }]);
  });
});
