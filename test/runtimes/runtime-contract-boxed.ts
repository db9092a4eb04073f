/**
 * The runtime contract's cases inside sssf's box (bubblewrap): the CLI starts at the working tree's
 * stable path, writes into context_handoff/ at its stable path, and a write outside never lands.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import type { AgentSendRequest } from "../../src/runtimes/runtime.js";
import { gitPathsOf } from "../../src/sandbox/git-paths.js";
import { resolveAgentSandbox } from "../../src/sandbox/resolve-sandbox.js";
import { DEFAULT_SANDBOX } from "../../src/sandbox/sandbox-settings.js";
import { sandboxSupport } from "../../src/sandbox/sandbox-support.js";
import type { FakeScript } from "../../src/testing/index.js";
import {
  type ContractCase,
  type ContractScene,
  type ContractSend,
  HANDOFF_FILE,
  type RuntimeContractWorld,
} from "./runtime-contract-world.js";
import { createWorktreeLayout, gitStatus, type WorktreeLayout } from "./worktree-layout.js";

/** What the contract's cases share: the world, and how a case opens a scene, sends and registers. */
export interface ContractContext<W extends ContractScene> {
  world: RuntimeContractWorld<W>;
  open: (script?: FakeScript) => Promise<W>;
  send: (scene: W, overrides: Partial<AgentSendRequest>) => Promise<ContractSend>;
  contractCase: (name: ContractCase, title: string, body: () => Promise<void>, ms?: number) => void;
}

/** True where bubblewrap can box a CLI; CI (SSSF_REQUIRE_SANDBOX=1) fails instead of skipping. */
function boxAvailable(): boolean {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--", "/bin/sh", "-c", ":"], {
      stdio: "ignore",
    });
    return true;
  } catch {
    if (process.env.SSSF_REQUIRE_SANDBOX === "1")
      throw new Error("SSSF_REQUIRE_SANDBOX=1 but bubblewrap cannot make a sandbox here");
    return false;
  }
}

/** A successful send: ok, and no error text. */
export function expectOk(sent: ContractSend): void {
  expect(sent.result.error).toBeUndefined();
  expect(sent.result.ok).toBe(true);
}

/** Registers the boxed write cases (skipped, saying so, where bubblewrap cannot box). */
export function boxedWriteCases<W extends ContractScene>({
  world,
  open,
  send,
  contractCase,
}: ContractContext<W>): void {
  const { runtime } = world;
  /**
   * The same write inside sssf's box (bubblewrap): the CLI starts at the working tree's stable path
   * and is told the stable path of context_handoff/; the model writes `boxPath`.
   */
  const boxedWrite = async (
    target: (layout: WorktreeLayout, box: { cwd: string; handoff: string }) => { host: string; box: string },
    reply: string,
  ) => {
    const scene = await open();
    const layout = createWorktreeLayout(scene.work);
    const base = scene.request({});
    const env = { ...process.env, ...base.env };
    const state = runtime.statePaths?.(env);
    for (const folder of state?.folders ?? []) mkdirSync(folder, { recursive: true });
    const agentSandbox = resolveAgentSandbox({
      settings: { ...DEFAULT_SANDBOX, mode: "required" },
      support: sandboxSupport(),
      repoRoot: layout.checkout,
      workTree: layout.worktree,
      gitPaths: [...gitPathsOf(layout.worktree), ...gitPathsOf(layout.checkout)],
      dataDir: path.join(layout.checkout, "adws/adw_data"),
      contextHandoffDir: layout.contextHandoff,
      agentDirs: [base.sessionDir],
      runtimeDirs: [...(state?.folders ?? []), ...(state?.files ?? []).filter((f) => existsSync(f))],
      home: env.HOME ?? "",
    });
    if (!agentSandbox.boxed) throw new Error(`no box: ${agentSandbox.reason}`);
    const file = target(layout, { cwd: agentSandbox.boxCwd, handoff: agentSandbox.boxContextHandoffDir });
    scene.server.setScript({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false, hasTools: true },
          writeFile: { path: file.box, content: HANDOFF_FILE.content },
        },
        { match: { afterToolResult: true }, reply },
      ],
    });
    const tools = world.toolCall?.tools;
    const sent = await send(scene, {
      prompt: "TURN-1 hand the plan over",
      cwd: agentSandbox.boxCwd,
      contextHandoffDir: agentSandbox.boxContextHandoffDir,
      sandbox: agentSandbox.sandbox,
      ...(tools ? { tools } : {}),
    });
    return { scene, layout, file, sent };
  };
  const boxCase: typeof contractCase = (name, title, body, ms) =>
    boxAvailable() ? contractCase(name, title, body, ms) : it.skip(`${title} (no bubblewrap here)`);

  boxCase(
    "boxedHandoffWrite",
    "inside sssf's box, writes into context_handoff/ at its stable path: the file exists on the host and one tool_call is reported",
    async () => {
      const { scene, layout, file, sent } = await boxedWrite(
        (l, box) => ({
          host: path.join(l.contextHandoff, HANDOFF_FILE.path),
          box: path.join(box.handoff, HANDOFF_FILE.path),
        }),
        "handed over",
      );
      expectOk(sent);
      expect(sent.result.text).toBe("handed over");
      expect(readFileSync(file.host, "utf8")).toBe(HANDOFF_FILE.content);
      expect(sent.observer.toolCalls.filter((call) => call.ok)).toHaveLength(1);
      // The box's paths exist inside the box only: nothing is made for them on the host.
      expect(existsSync("/sssf")).toBe(false);
      expect(gitStatus(layout.checkout)).toBe("");
      expect(scene.server.egress()).toEqual([]);
    },
  );

  boxCase(
    "boxedOutsideWrite",
    "inside sssf's box, a write outside its folders never lands, and the model is told",
    async () => {
      const { scene, layout, file, sent } = await boxedWrite(
        (l) => ({
          host: path.join(l.outside, HANDOFF_FILE.path),
          box: path.join(l.outside, HANDOFF_FILE.path),
        }),
        "could not write",
      );
      expectOk(sent);
      expect(sent.result.text).toBe("could not write");
      expect(existsSync(file.host)).toBe(false);
      expect(gitStatus(layout.checkout)).toBe("");
      expect(sent.observer.toolCalls.filter((call) => call.ok)).toEqual([]);
      expect(scene.server.egress()).toEqual([]);
    },
  );
}
