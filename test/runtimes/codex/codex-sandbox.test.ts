import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, runWorkflow } from "../../../src/library.js";
import { codexRuntime } from "../../../src/runtimes/codex/index.js";
import { SANDBOX_HELPER } from "../../../src/runtimes/codex/sandbox-helper.js";
import { sandboxSupport } from "../../../src/sandbox/sandbox-support.js";
import type { FakeScript } from "../../../src/testing/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { openRawSqlite } from "../../helpers/raw-sqlite.js";
import { type CliWorld, engineRepo } from "../cli-harness.js";
import { CODEX_TEST_MODEL, type CodexWorld, codexBin, codexObserver, openCodexWorld } from "./codex-world.js";

const worlds: CliWorld[] = [];
async function world(script: FakeScript): Promise<CodexWorld> {
  // The contract world: /tmp and $TMPDIR are no writable roots of codex's sandbox (the scene lives there).
  const created = await openCodexWorld(script);
  worlds.push(created);
  return created;
}
afterEach(async () => {
  for (const created of worlds.splice(0)) await created.cleanup();
});

const shell = (cmd: string) => ({ name: "exec_command", args: { cmd } });
const bwrapHere = process.platform === "linux" && sandboxSupport().available;

describe("codex's own sandbox outside sssf's box (real codex CLI against the fake model)", () => {
  it("runs a shell call in its workspace and refuses a write outside it, with CODEX_HOME under the temp folder", async () => {
    const w = await world({
      steps: [
        { match: { text: "TURN-1", afterToolResult: false }, tool: shell("printf inside > inside.txt") },
        { match: { afterToolResult: true, text: "TURN-1" }, tool: shell("printf outside > ../outside.txt") },
        { match: { afterToolResult: true }, reply: "done", repeat: true },
      ],
    });
    const observer = codexObserver();
    const request = w.request({ prompt: "TURN-1 write", tools: ["bash"] });
    const result = await codexRuntime.send(request, observer);
    expect(result).toMatchObject({ ok: true, text: "done" });
    const argv = observer.commands[0] ?? [];
    expect(argv[argv.indexOf("-s") + 1]).toBe("workspace-write");

    // codex links no helper under a temporary CODEX_HOME; sssf's link is what its bwrap starts.
    expect(w.env.CODEX_HOME?.startsWith(path.dirname(w.root))).toBe(true);
    expect(existsSync(path.join(request.sessionDir, "codex-path", SANDBOX_HELPER))).toBe(true);
    expect(readFileSync(path.join(w.work, "inside.txt"), "utf8")).toBe("inside");
    expect(existsSync(path.join(w.root, "outside.txt"))).toBe(false);
    expect(observer.toolCalls.map(({ name, ok }) => ({ name, ok }))).toEqual([
      { name: "bash: printf inside > inside.txt", ok: true },
      { name: "bash: printf outside > ../outside.txt", ok: false },
    ]);
    expect(observer.toolCalls[1]?.result).toContain("Read-only file system");
    expect(JSON.stringify(observer.toolCalls)).not.toContain("execvp");
  }, 120_000);

  it("reports a failed shell call the --json stream leaves out, from codex's session file", async () => {
    const w = await world({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          tool: { name: "write_stdin", args: { session_id: 4242, chars: "y\n" } },
        },
        { match: { afterToolResult: true, text: "TURN-1" }, tool: shell("exit 3") },
        { match: { afterToolResult: true }, reply: "done", repeat: true },
      ],
    });
    const observer = codexObserver();
    const result = await codexRuntime.send(w.request({ prompt: "TURN-1 poke", tools: ["bash"] }), observer);
    expect(result).toMatchObject({ ok: true, text: "done" });
    // The failed command is in the stream (once); the failed write_stdin only in the session file.
    expect(observer.toolCalls.map(({ tool, ok, args }) => ({ tool, ok, args }))).toEqual([
      { tool: "bash", ok: false, args: { command: "exit 3" } },
      {
        tool: "write_stdin",
        ok: false,
        args: { session_id: 4242, chars: "y\n", source: "session_file" },
      },
    ]);
    expect(observer.toolCalls[1]?.result).toContain("Unknown process id 4242");
    expect(observer.logs.some((line) => /1 tool call missing from codex's --json stream/.test(line))).toBe(
      true,
    );

    // A resumed send reports only its own calls, not the thread's earlier ones again.
    const again = codexObserver();
    const second = await codexRuntime.send(
      w.request({
        prompt: "TURN-2 again",
        tools: ["bash"],
        resume: true,
        nativeSessionId: result.nativeSessionId,
      }),
      again,
    );
    expect(second.ok).toBe(true);
    expect(again.toolCalls).toEqual([]);
  }, 120_000);
});

describe.runIf(process.platform === "linux")("codex doctor and the sandbox helper", () => {
  it("warns when it cannot tell which codex binary a wrapper script runs, and says nothing for npm's wrapper", async () => {
    const w = await world({ steps: [] });
    const wrapper = path.join(w.root, "my-codex");
    writeFileSync(wrapper, `#!/bin/sh\nexec ${codexBin} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const doctor = (command: string[]) =>
      codexRuntime.doctor?.({ agent: "agent", model: CODEX_TEST_MODEL, command, env: w.env, cwd: w.work });
    const wrapped = await doctor([wrapper]);
    expect(wrapped?.find((check) => check.item === SANDBOX_HELPER)).toMatchObject({
      ok: true,
      warning: true,
    });
    expect(wrapped?.find((check) => check.item === SANDBOX_HELPER)?.detail).toContain(wrapper);
    expect((await doctor([codexBin]))?.map((check) => check.item)).not.toContain(SANDBOX_HELPER);

    // A send through the wrapper says the same in a log line (and still runs).
    const observer = codexObserver();
    const sent = await codexRuntime.send(w.request({ command: [wrapper], tools: [] }), observer);
    expect(sent.ok).toBe(true);
    expect(observer.logs.some((line) => line.includes(`sssf puts no ${SANDBOX_HELPER} on PATH`))).toBe(true);
  }, 120_000);
});

/** The run's context_handoff/ folder (there is one session). */
const handoffOf = (work: string): string => {
  const sessions = path.join(work, "adws/adw_data/sessions");
  const [adwId] = readdirSync(sessions);
  return path.join(sessions, adwId ?? "", "context_handoff");
};

describe.runIf(bwrapHere)(
  "codex inside sssf's box (bubblewrap, real codex CLI against the fake model)",
  () => {
    it("runs with codex's sandbox off and writes the working tree and context_handoff/ through the shell and apply_patch", async () => {
      const envelope = JSON.stringify({
        status: "success",
        summary: "boxed",
        artifacts: [],
        notes_for_next_agent: "",
      });
      const w = await world({
        steps: [
          {
            match: { text: "BOXED", afterToolResult: false },
            tool: shell(
              "mkdir -p out && printf shell > out/shell.txt && printf note > /sssf/context_handoff/shell.md",
            ),
          },
          {
            match: { text: "BOXED", afterToolResult: true },
            tool: {
              name: "apply_patch",
              args: {
                input:
                  "*** Begin Patch\n*** Add File: /sssf/context_handoff/patch.md\n+patched\n*** End Patch\n",
              },
            },
          },
          { match: { afterToolResult: true }, reply: envelope, repeat: true },
        ],
      });
      engineRepo(w, { codingAgent: "codex", model: CODEX_TEST_MODEL, command: [codexBin] });
      const configFile = path.join(w.work, "adws/adw_sssf_config/sssf.config.yaml");
      const written = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>;
      writeFileSync(configFile, JSON.stringify({ ...written, sandbox: { mode: "required" } }));
      const outcome = await runWorkflow({
        workflow: promptWorkflow,
        request: "BOXED write the files",
        config: loadConfig({ cwd: w.work }),
        runtimes: [codexRuntime],
      });
      expect(outcome.exitCode).toBe(0);
      expect(readFileSync(path.join(w.work, "out/shell.txt"), "utf8")).toBe("shell");
      const handoff = handoffOf(w.work);
      expect(readFileSync(path.join(handoff, "shell.md"), "utf8")).toBe("note");
      expect(readFileSync(path.join(handoff, "patch.md"), "utf8")).toBe("patched\n");

      const db = openRawSqlite(loadConfig({ cwd: w.work }).dbPath, { readonly: true });
      try {
        // The process row holds codex's argv and where it started on the host; codex itself is told
        // the working tree's path in the box.
        const [codex] = db.prepare("SELECT command, cwd FROM processes").all() as {
          command: string;
          cwd: string;
        }[];
        const argv = JSON.parse(codex?.command ?? "[]") as string[];
        expect(codex?.cwd).toBe(w.work);
        expect(argv[argv.indexOf("-C") + 1]).toMatch(/^\/sssf\/work\//);
        expect(argv[argv.indexOf("-s") + 1]).toBe("danger-full-access");
        expect(argv).not.toContain("--add-dir");
        const calls = db.prepare("SELECT ok, payload FROM events WHERE type = 'tool_call'").all() as {
          ok: number;
          payload: string;
        }[];
        expect(
          calls.map((row) => ({ tool: (JSON.parse(row.payload) as { tool: string }).tool, ok: row.ok })),
        ).toEqual([
          { tool: "bash", ok: 1 },
          { tool: "write", ok: 1 },
        ]);
      } finally {
        db.close();
      }
    }, 180_000);
  },
);
