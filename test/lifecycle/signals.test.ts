import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import {
  type AgentTree,
  agentTree,
  hangingTurn,
  killTree,
  pidFrom,
  type Row,
  running,
  setsidSleep,
  treeGone,
} from "./lifecycle-world.js";

// Unboxed (SSSF_SANDBOX=off): these tests read the host pids their agents write and signal them; test/sandbox covers the box.
process.env.SSSF_SANDBOX = "off";

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

/** Nothing of the session is left open: session ended, no phase or process still running. */
function expectFinalized(reason: RegExp): void {
  const [session] = sb.query<Row>("SELECT status, accepted, reason, ended_at FROM sessions");
  expect(["fail", "interrupted"]).toContain(session?.status);
  expect(session?.accepted).toBe(0);
  expect(String(session?.reason)).toMatch(reason);
  expect(session?.ended_at).not.toBeNull();
  expect(sb.query<Row>("SELECT id FROM phases WHERE status = 'running' OR ended_at IS NULL")).toEqual([]);
  expect(sb.query<Row>("SELECT id FROM processes WHERE status = 'running' OR ended_at IS NULL")).toEqual([]);
}

describe("signals", () => {
  it("SIGHUP stops the agents and finalizes the session, exit 129", async () => {
    const escapedFile = path.join(sb.agentsDir, "setsid.pid");
    sb.setup([{ name: "assistant", turns: [hangingTurn(escapedFile)] }]);
    const child = sb.start(["run", "prompt", "hang around", "--adw-id", "0000a0b1"]);
    const done = collect(child);
    tree = await agentTree(sb, "0000a0b1", escapedFile);
    child.kill("SIGHUP");
    const result = await done;
    expect(result.code).toBe(129);
    expect(result.stderr).toContain("SIGHUP received");
    await treeGone(tree, "after SIGHUP");
    expectFinalized(/interrupted by SIGHUP/);
  });

  it("a second SIGINT kills the agents at once and still finalizes the session, exit 130", async () => {
    const escapedFile = path.join(sb.agentsDir, "setsid.pid");
    sb.setup([{ name: "assistant", turns: [{ ...hangingTurn(escapedFile), ignore_sigterm: true }] }]);
    const child = sb.start(["run", "prompt", "hang around", "--adw-id", "0000a0b2"]);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const done = collect(child);
    tree = await agentTree(sb, "0000a0b2", escapedFile);
    child.kill("SIGINT");
    await waitFor(() => stderr.includes("SIGINT received"), 20_000, "the first SIGINT handled");
    child.kill("SIGINT");
    const result = await done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("second SIGINT");
    await treeGone(tree, "after two SIGINTs");
    expectFinalized(/interrupted by SIGINT/);
  });

  it("a third SIGINT closes the session at once and exits 130, leaving nothing open", async () => {
    const escapedFile = path.join(sb.agentsDir, "setsid.pid");
    sb.setup([{ name: "assistant", turns: [{ ...hangingTurn(escapedFile), ignore_sigterm: true }] }]);
    const child = sb.start(["run", "prompt", "hang around", "--adw-id", "0000a0b3"]);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const done = collect(child);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    tree = await agentTree(sb, "0000a0b3", escapedFile);
    child.kill("SIGINT");
    await waitFor(() => stderr.includes("SIGINT received"), 20_000, "the first SIGINT handled");
    child.kill("SIGINT");
    await waitFor(() => stderr.includes("second SIGINT"), 20_000, "the second SIGINT handled");
    child.kill("SIGINT");
    const result = await done;
    // Either the third signal closed the session (exit 130), or the run had finalized already and the
    // signal met node's own exit path (killed by SIGINT: a shell shows 130 as well).
    const signal = await exited;
    expect(signal === "SIGINT" ? 130 : result.code).toBe(130);
    await treeGone(tree, "after three SIGINTs");
    expectFinalized(/interrupted by SIGINT/);
  });

  it("a grandchild that left the agent's group with setsid is ended when the send ends", async () => {
    const escapedFile = path.join(sb.agentsDir, "setsid.pid");
    sb.setup([
      {
        name: "assistant",
        turns: [
          { tool_calls: [setsidSleep(escapedFile)], reply: envelopeJson({ summary: "left a daemon" }) },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "start a daemon"]);
    expect(result.code).toBe(0);
    const escaped = await pidFrom(escapedFile, "the setsid sleep");
    await waitFor(() => !running(escaped), 15_000, `the setsid sleep ${escaped} gone`);
    expect(sb.query<Row>("SELECT status FROM processes")).toEqual([{ status: "exited" }]);
  });
});
