import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processGroupAlive, trackedProcessGroups } from "../../../src/util/process-group.js";
import { ExecSandbox, sendExec, waitForDeath, waitForFile } from "./exec-fixture.js";

let sandbox: ExecSandbox;
beforeEach(() => {
  sandbox = new ExecSandbox();
});
afterEach(() => sandbox.cleanup());

const grandchildPid = async (sessionDir: string) =>
  Number(await waitForFile(join(sessionDir, "grandchild.pid")));

describe("exec runtime kills", () => {
  it("kills a silent agent's group on the idle timeout", async () => {
    const agent = sandbox.scripted([{ tool_calls: [{ tool: "think" }], hang: true }]);
    const request = sandbox.request(agent.command, { timeouts: { idleMs: 500, wallMs: 60_000 } });
    const started = Date.now();
    const { result, observed } = await sendExec(request);

    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
    expect(result.error).toContain(
      "agent builder produced no output for 500ms (idle timeout); killed its process group",
    );
    expect(observed.ends[0]).toMatchObject({ status: "timeout" });
    const pid = observed.starts[0]!.pid;
    expect(trackedProcessGroups()).not.toContain(pid);
    expect(await waitForDeath(pid)).toBe(true);
  });

  it("restarts the idle clock on output, then kills the group with its grandchild", async () => {
    const inline = [
      'const { spawn } = require("node:child_process");',
      'const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });',
      'console.log(JSON.stringify({ type: "log", message: String(child.pid) }));',
      "let ticks = 0;",
      'const timer = setInterval(() => { console.log("tick"); if (++ticks === 10) clearInterval(timer); }, 100);',
      "setInterval(() => {}, 60000);",
    ].join("\n");
    const request = sandbox.request([process.execPath, "-e", inline], {
      timeouts: { idleMs: 800, wallMs: 60_000 },
    });
    const started = Date.now();
    const { result, observed } = await sendExec(request);

    expect(Date.now() - started).toBeGreaterThanOrEqual(1800);
    expect(result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
    expect(sandbox.rawLines().filter((line) => line === "tick")).toHaveLength(10);
    expect(await waitForDeath(Number(observed.logs[0]))).toBe(true);
  });

  it("kills an agent that keeps talking past the wall timeout", async () => {
    const inline = 'setInterval(() => console.log(JSON.stringify({ type: "log", message: "tick" })), 50)';
    const request = sandbox.request([process.execPath, "-e", inline], {
      timeouts: { idleMs: 1000, wallMs: 2500 },
    });
    const started = Date.now();
    const { result, observed } = await sendExec(request);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    expect(result).toMatchObject({ ok: false, errorKind: "wall_timeout" });
    expect(result.error).toContain("ran longer than 2.5s (wall timeout); killed its process group");
    expect(observed.logs.length).toBeGreaterThan(10);
    expect(processGroupAlive(observed.starts[0]!.pid)).toBe(false);
  });

  it("aborts a hanging agent and its grandchild", async () => {
    const agent = sandbox.scripted([{ spawn_grandchild: true, hang: true }]);
    const controller = new AbortController();
    const sending = sendExec(sandbox.request(agent.command, { signal: controller.signal }));
    const grandchild = await grandchildPid(sandbox.sessionDir);
    controller.abort();
    const { result, observed } = await sending;

    expect(result).toMatchObject({ ok: false, errorKind: "aborted" });
    expect(result.error).toContain("agent builder was aborted; killed its process group");
    expect(observed.ends[0]).toMatchObject({ status: "killed" });
    expect(await waitForDeath(grandchild)).toBe(true);
  });

  it("SIGKILLs an agent that ignores SIGTERM", async () => {
    const agent = sandbox.scripted([{ ignore_sigterm: true, tool_calls: [{ tool: "think" }], hang: true }]);
    const controller = new AbortController();
    const request = sandbox.request(agent.command, { signal: controller.signal });
    const sending = sendExec(request, (observed) => {
      if (observed.toolCalls.length === 1) controller.abort();
    });
    const { result, observed } = await sending;

    expect(result).toMatchObject({ ok: false, errorKind: "aborted" });
    expect(observed.ends[0]).toMatchObject({ status: "killed", signal: "SIGKILL" });
    expect(await waitForDeath(observed.starts[0]!.pid)).toBe(true);
  });

  it("kills a grandchild left running by an agent that exited normally", async () => {
    const agent = sandbox.scripted([{ spawn_grandchild: true, reply: "done" }]);
    const { result } = await sendExec(sandbox.request(agent.command));
    expect(result).toMatchObject({ ok: true, text: "done" });
    const grandchild = await grandchildPid(sandbox.sessionDir);
    expect(await waitForDeath(grandchild)).toBe(true);
  });

  it("does not start an agent when the signal is already aborted", async () => {
    const agent = sandbox.scripted([{ reply: "never" }]);
    const { result, observed } = await sendExec(
      sandbox.request(agent.command, { signal: AbortSignal.abort() }),
    );
    expect(result).toMatchObject({ ok: false, errorKind: "aborted" });
    expect(observed.starts).toEqual([]);
    expect(agent.sends()).toEqual([]);
  });
});
