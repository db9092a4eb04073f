import { chmodSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codexArgs, planCodexTools } from "../../../src/runtimes/codex/args.js";
import { unreportedCalls } from "../../../src/runtimes/codex/rollout-calls.js";
import {
  codexNativeBinary,
  linkSandboxHelper,
  pathWithFirst,
  SANDBOX_HELPER,
} from "../../../src/runtimes/codex/sandbox-helper.js";
import { codexBin } from "./codex-world.js";

const scratch: string[] = [];
const folder = () => {
  const made = mkdtempSync(path.join(tmpdir(), "sssf-codex-sandbox-"));
  scratch.push(made);
  return made;
};
afterEach(() => {
  for (const made of scratch.splice(0)) rmSync(made, { recursive: true, force: true });
});

const argsFor = (tools: string[], boxed: boolean) =>
  codexArgs({
    command: ["codex"],
    cwd: "/sssf/work/repo",
    model: "",
    effort: null,
    plan: planCodexTools(tools, true),
    instructionsFile: "/s/i.md",
    catalogFile: null,
    threadId: null,
    contextHandoffDir: "/sssf/context_handoff",
    boxed,
  });
const flagValue = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];

describe("codex's own sandbox, inside and outside sssf's box", () => {
  it("keeps codex's sandbox outside the box and turns it off inside, approvals off in both", () => {
    const outside = argsFor(["bash", "edit"], false);
    expect(flagValue(outside, "-s")).toBe("workspace-write");
    expect(flagValue(outside, "--add-dir")).toBe("/sssf/context_handoff");
    expect(flagValue(argsFor(["read"], false), "-s")).toBe("read-only");

    for (const tools of [["bash", "edit"], ["read"], []]) {
      const inside = argsFor(tools, true);
      expect(inside.filter((arg) => arg === "-s")).toHaveLength(1);
      expect(flagValue(inside, "-s")).toBe("danger-full-access");
      expect(inside).not.toContain("--add-dir");
      expect(inside).toContain('approval_policy="never"');
    }
    // The tools plan still decides which tools codex offers inside the box.
    expect(argsFor([], true)).toEqual(expect.arrayContaining(["--disable", "shell_tool"]));
  });

  it("finds the native codex binary behind npm's wrapper, run directly or through node", () => {
    const env = { PATH: path.dirname(codexBin) };
    const native = codexNativeBinary([codexBin], { cwd: "/", env });
    expect(native).toMatch(/vendor\/[^/]+-linux-musl\/bin\/codex$/);
    expect(codexNativeBinary(["codex"], { cwd: "/", env })).toBe(native);
    expect(codexNativeBinary([process.execPath, codexBin], { cwd: "/", env })).toBe(native);
    expect(codexNativeBinary([native as string], { cwd: "/", env: {} })).toBe(native);
    // Another arch has no platform package here; another wrapper cannot be seen through.
    expect(codexNativeBinary([codexBin], { cwd: "/", env, arch: "riscv64" })).toBeNull();
    const script = path.join(folder(), "codex");
    writeFileSync(script, '#!/bin/sh\nexec codex "$@"\n');
    chmodSync(script, 0o755);
    expect(codexNativeBinary([script], { cwd: "/", env })).toBeNull();
    expect(codexNativeBinary(["no-such-codex"], { cwd: "/", env })).toBeNull();
    expect(codexNativeBinary([process.execPath], { cwd: "/", env })).toBeNull();
  });

  it("links codex-linux-sandbox in a folder of its own, relinking when the binary moves", () => {
    const dir = path.join(folder(), "codex-path");
    expect(linkSandboxHelper(dir, "/opt/a/codex")).toBe(dir);
    expect(readlinkSync(path.join(dir, SANDBOX_HELPER))).toBe("/opt/a/codex");
    linkSandboxHelper(dir, "/opt/a/codex");
    linkSandboxHelper(dir, "/opt/b/codex");
    expect(readlinkSync(path.join(dir, SANDBOX_HELPER))).toBe("/opt/b/codex");
    expect(pathWithFirst(dir, { PATH: "/usr/bin:/bin" })).toBe(`${dir}:/usr/bin:/bin`);
    expect(pathWithFirst(dir, {})).toBe(dir);
  });
});

/** Rollout lines as codex 0.171 writes them (trimmed to the fields sssf reads). */
const at = (second: number) => `2026-12-06T15:00:${String(second).padStart(2, "0")}.000Z`;
const item = (second: number, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: at(second), type: "response_item", payload });
const itemEvent = (second: number, type: string, id: string) =>
  JSON.stringify({
    timestamp: at(second),
    type: "event_msg",
    payload: { type: "item_completed", item: { type, id } },
  });
const call = (second: number, id: string, name: string, args: unknown) =>
  item(second, { type: "function_call", name, arguments: JSON.stringify(args), call_id: id });
const output = (second: number, id: string, text: string, type = "function_call_output") =>
  item(second, { type, call_id: id, output: text });

describe("tool calls read from codex's session file", () => {
  const rollout = [
    JSON.stringify({ timestamp: at(0), type: "session_meta", payload: { id: "t" } }),
    // Reported by the stream (a command_execution item): not reported again, failed or not.
    call(1, "c1", "exec_command", { cmd: "exit 3" }),
    itemEvent(2, "CommandExecution", "c1"),
    output(2, "c1", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 3\nOutput:\n"),
    // A patch codex rejected: no item, so the stream never showed it.
    item(3, {
      type: "custom_tool_call",
      name: "apply_patch",
      call_id: "c2",
      input: "*** Begin Patch\n*** Add File: /etc/x\n+y\n*** End Patch\n",
    }),
    output(3, "c2", "patch rejected: writing outside of the project", "custom_tool_call_output"),
    // A shell call that failed before any process ran.
    call(4, "c3", "write_stdin", { session_id: 99, chars: "x" }),
    output(5, "c3", "write_stdin failed: Unknown process id 99"),
    // A command that ran and failed, where only the session file has it.
    call(6, "c4", "exec_command", { cmd: "false" }),
    output(7, "c4", "Chunk ID: 2\nProcess exited with code 1\nOutput:\n"),
    call(8, "c5", "exec_command", { cmd: "true" }),
    output(8, "c5", "Chunk ID: 3\nProcess exited with code 0\nOutput:\n"),
    item(9, {
      type: "local_shell_call",
      call_id: "c6",
      action: { type: "exec", command: ["bash", "-lc", "ls"] },
    }),
    output(9, "c6", JSON.stringify({ output: "", metadata: { exit_code: 2 } })),
    // A call still running when codex ended has no output: the stream's flush reports it.
    call(10, "c7", "exec_command", { cmd: "sleep 100" }),
    "{not json",
  ].join("\n");

  it("reports every finished call the stream left out, marked, failures as failed", () => {
    const calls = unreportedCalls(rollout, 1);
    expect(calls.map(({ tool, name, ok }) => ({ tool, name, ok }))).toEqual([
      { tool: "write", name: "write: /etc/x", ok: false },
      { tool: "write_stdin", name: expect.stringMatching(/^write_stdin: /), ok: false },
      { tool: "bash", name: "bash: false", ok: false },
      { tool: "bash", name: "bash: true", ok: true },
      { tool: "bash", name: "bash: ls", ok: false },
    ]);
    for (const found of calls) expect(found.args).toMatchObject({ source: "session_file" });
    expect(calls[0]?.result).toBe("patch rejected: writing outside of the project");
    expect(calls[1]?.startedAt.toISOString()).toBe(at(4));
    expect(calls[1]?.endedAt.toISOString()).toBe(at(5));
  });

  it("reports an item the stream never got to (it was cut short) from the session file", () => {
    const calls = unreportedCalls(rollout, 0);
    expect(calls[0]).toMatchObject({ tool: "bash", name: "bash: exit 3", ok: false });
    expect(calls).toHaveLength(6);
    expect(unreportedCalls("", 0)).toEqual([]);
  });

  it("tells a patch that applied from one that failed", () => {
    const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** End Patch\n";
    const applied = [
      item(1, { type: "custom_tool_call", name: "apply_patch", call_id: "p1", input: patch }),
      output(
        1,
        "p1",
        "Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM a.ts\n",
        "custom_tool_call_output",
      ),
      item(2, { type: "custom_tool_call", name: "apply_patch", call_id: "p2", input: patch }),
      output(2, "p2", "apply_patch verification failed: no such line", "custom_tool_call_output"),
    ].join("\n");
    expect(unreportedCalls(applied, 0).map(({ tool, name, ok }) => ({ tool, name, ok }))).toEqual([
      { tool: "edit", name: "edit: a.ts", ok: true },
      { tool: "edit", name: "edit: a.ts", ok: false },
    ]);
  });
});
