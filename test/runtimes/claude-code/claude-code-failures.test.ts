import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeCodeRuntime } from "../../../src/runtimes/claude-code/index.js";
import { claudeTmpDir } from "../../../src/runtimes/claude-code/scratch.js";
import { claudeTranscriptPath } from "../../../src/runtimes/claude-code/session.js";
import { recordingObserver } from "../cli-harness.js";
import { type ClaudeWorld, claudeBinary, createClaudeWorld } from "./claude-code-world.js";

let world: ClaudeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("claude_code runtime failures", () => {
  it("removes the socket of a claude killed with SIGKILL", async () => {
    world = await createClaudeWorld({ steps: [{ match: { text: "TURN-1" }, hang: true }] });
    const current = world;
    let pid = 0;
    const killed = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (pid === 0 || current.calls().length === 0) return;
        clearInterval(poll);
        process.kill(pid, "SIGKILL");
        resolve();
      }, 100);
    });
    const result = await claudeCodeRuntime.send(current.request(), {
      onProcessStart: (started) => {
        pid = started.pid;
      },
    });
    await killed;
    expect(result.errorKind).toBe("exit_nonzero");
    const tmp = claudeTmpDir(current.request().sessionDir);
    expect(existsSync(path.join(tmp, "cc-socks"))).toBe(true);
    expect(existsSync(path.join(tmp, "cc-socks", `${pid}.sock`))).toBe(false);
  }, 120_000);

  it("refuses an unknown tool without spawning", async () => {
    world = await createClaudeWorld();
    const observer = recordingObserver();
    const tool = await claudeCodeRuntime.send(world.request({ tools: ["read", "browser"] }), observer);
    expect(tool.errorKind).toBe("spawn_failed");
    expect(tool.error).toContain('"browser"');
    expect(tool.error).toContain("read, bash, edit, write, grep, find, ls");
    expect(observer.pids).toEqual([]);
  });

  it("reports model_unknown when the endpoint does not serve the model", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { model: "claude-nope" },
          error: { status: 404, message: "model: claude-nope" },
          repeat: true,
        },
      ],
    });
    const result = await claudeCodeRuntime.send(world.request({ model: "claude-nope" }), recordingObserver());
    expect(result.ok).toBe(false);
    expect(result.errorKind).toBe("model_unknown");
    expect(result.error).toContain('"claude-nope"');
    expect(result.error).toContain("ANTHROPIC_BASE_URL");
    expect(world.server.egress()).toEqual([]);
  }, 120_000);

  it("fails on an API error although claude says subtype success", async () => {
    world = await createClaudeWorld({
      steps: [{ match: { text: "TURN-1" }, error: { status: 400, message: "bad thing TEST" }, repeat: true }],
    });
    const result = await claudeCodeRuntime.send(world.request(), recordingObserver());
    expect(result.ok).toBe(false);
    expect(result.errorKind).toBe("agent_error");
    expect(result.error).toContain("bad thing TEST");
    expect(result.text).toBe("");
  }, 120_000);

  it("refuses to resume a conversation whose transcript vanished, and starts one that never began", async () => {
    world = await createClaudeWorld();
    const logs: string[] = [];
    const fresh = await claudeCodeRuntime.send(world.request({ resume: true }), {
      onLog: (message) => logs.push(message),
    });
    expect(fresh.ok, fresh.error).toBe(true);
    expect(logs.some((message) => message.includes("starting the conversation fresh"))).toBe(true);
    const transcript = claudeTranscriptPath(
      path.join(world.home, ".claude"),
      world.work,
      fresh.nativeSessionId ?? "",
    );
    rmSync(transcript);
    const gone = await claudeCodeRuntime.send(
      world.request({ prompt: "TURN-2", resume: true, nativeSessionId: fresh.nativeSessionId }),
      recordingObserver(),
    );
    expect(gone.ok).toBe(false);
    expect(gone.errorKind).toBe("spawn_failed");
    expect(gone.error).toContain(transcript);
    expect(world.calls()).toHaveLength(1);
  }, 120_000);

  it("doctor finds the binary, its version, the model and the key variable", async () => {
    world = await createClaudeWorld();
    const checks = await claudeCodeRuntime.doctor?.({
      agent: "agent",
      model: "sonnet",
      command: [claudeBinary],
      env: world.env,
      cwd: world.work,
    });
    expect(checks?.map((check) => [check.item, check.ok])).toEqual([
      ["binary", true],
      ["version", true],
      ["model", true],
      ["ANTHROPIC_API_KEY", true],
    ]);
    expect(checks?.[1]?.detail).toMatch(/^2\.1\.332/);
    expect(JSON.stringify(checks)).not.toContain("sk-ant-fake");
    const missing = await claudeCodeRuntime.doctor?.({
      agent: "agent",
      model: "",
      command: [path.join(world.root, "no-such-claude")],
      env: world.env,
      cwd: world.work,
    });
    expect(missing?.[0]).toMatchObject({ ok: false, item: "binary" });
    expect(world.calls()).toEqual([]);
  });
});
