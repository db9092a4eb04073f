import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN_RUNTIME_IDS } from "../../src/runtimes/builtins.js";
import type { AgentSendRequest } from "../../src/runtimes/runtime.js";
import { toolCallName } from "../../src/runtimes/send-loop/tool-call-name.js";
import type { FakeScript } from "../../src/testing/index.js";
import { processGroupAlive } from "../../src/util/process-group.js";
import { boxedWriteCases, expectOk } from "./runtime-contract-boxed.js";
import {
  CONTRACT_FILE,
  CONTRACT_USAGE,
  type ContractCase,
  type ContractScene,
  type ContractSend,
  contractObserver,
  HANDOFF_FILE,
  markersOf,
  type RuntimeContractWorld,
} from "./runtime-contract-world.js";
import { createWorktreeLayout, gitStatus, type WorktreeLayout } from "./worktree-layout.js";

export {
  CONTRACT_FILE,
  type ContractSend,
  HANDOFF_FILE,
  markersOf,
  type RuntimeContractWorld,
} from "./runtime-contract-world.js";
export type { WorktreeLayout } from "./worktree-layout.js";

const CASE_TIMEOUT_MS = 180_000;

/** No argv of a send is this long: prompts travel on stdin or in files. */
const ARGV_LIMIT = 2000;

/** Registers the shared contract cases for one CLI runtime (`describe`/`it` of the calling file). */
export function describeRuntimeContract<W extends ContractScene>(world: RuntimeContractWorld<W>): void {
  const { runtime, wire } = world;
  describe(`${world.id} runtime contract (real CLI against the fake model)`, () => {
    const scenes: W[] = [];
    afterEach(async () => {
      for (const scene of scenes.splice(0)) await scene.cleanup();
    });
    const open = async (script?: FakeScript): Promise<W> => {
      const scene = await world.open(script);
      scenes.push(scene);
      return scene;
    };
    const send = async (scene: W, overrides: Partial<AgentSendRequest>): Promise<ContractSend> => {
      const request = scene.request(overrides);
      const observer = contractObserver();
      return { request, observer, result: await runtime.send(request, observer) };
    };
    const contractCase = (
      name: ContractCase,
      title: string,
      body: () => Promise<void>,
      ms = CASE_TIMEOUT_MS,
    ) => {
      const reason = world.skip?.[name];
      if (reason) it.skip(`${title} (skipped for ${world.id}: ${reason})`);
      else it(title, body, ms);
    };

    it(`is the built-in runtime "${world.id}"`, () => {
      expect(runtime.id).toBe(world.id);
      expect(BUILTIN_RUNTIME_IDS).toContain(world.id);
      expect(runtime.specVersion).toBe("sssf-runtime/1");
    });

    contractCase(
      "session",
      "continues a named session: the second send's request carries the first turn",
      async () => {
        const scene = await open();
        world.session?.before?.(scene);
        const first = await send(scene, { prompt: "TURN-1 hello", ...world.session?.first });
        expectOk(first);
        expect(markersOf(first.result.text)).toEqual(["TURN-1"]);
        expect(first.result.nativeSessionId).toEqual(expect.any(String));
        const second = await send(scene, {
          prompt: "TURN-2 go on",
          resume: true,
          nativeSessionId: first.result.nativeSessionId,
          ...world.session?.second,
        });
        expectOk(second);
        expect(markersOf(second.result.text)).toEqual(["TURN-1", "TURN-2"]);
        expect(second.result.nativeSessionId).toBe(first.result.nativeSessionId);

        const requests = wire.requests(scene);
        expect(requests).toHaveLength(2);
        const users = wire.userTexts(requests[1]);
        expect(users.some((text) => text.includes("TURN-1 hello"))).toBe(true);
        expect(users.at(-1)).toContain("TURN-2 go on");
        expect(wire.systemText(requests[1])).toContain(second.request.systemPrompt);
        for (const sent of [first, second]) {
          expect(sent.observer.commands).toHaveLength(1);
          const argv = sent.observer.commands.flat().join(" ");
          expect(argv).not.toContain("TURN-");
          expect(argv).not.toContain(sent.request.systemPrompt);
        }
        expect(scene.server.egress()).toEqual([]);
        await world.session?.expect?.(scene, first, second);
      },
    );

    contractCase(
      "toolCall",
      "makes one real tool call: the file exists and one tool_call is reported",
      async () => {
        const scene = await open({
          steps: [
            { match: { text: "TURN-1", afterToolResult: false, hasTools: true }, writeFile: CONTRACT_FILE },
            { match: { afterToolResult: true }, reply: `wrote ${CONTRACT_FILE.path}` },
          ],
        });
        const before = Date.now();
        const tools = world.toolCall?.tools;
        const sent = await send(scene, { prompt: "TURN-1 write the notes", ...(tools ? { tools } : {}) });
        expectOk(sent);
        expect(sent.result.text).toBe(`wrote ${CONTRACT_FILE.path}`);
        expect(readFileSync(path.join(scene.work, CONTRACT_FILE.path), "utf8")).toBe(CONTRACT_FILE.content);
        expect(sent.observer.toolCalls).toHaveLength(1);
        const call = sent.observer.toolCalls[0]!;
        expect(call).toMatchObject({ tool: "write", name: `write: ${CONTRACT_FILE.path}`, ok: true });
        expect(call.startedAt.getTime()).toBeGreaterThanOrEqual(before);
        expect(call.endedAt.getTime()).toBeGreaterThanOrEqual(call.startedAt.getTime());
        expect(scene.server.egress()).toEqual([]);
        await world.toolCall?.expect?.(scene, sent);
      },
    );

    /**
     * One write in a worktree run: the CLI starts in the run's git worktree, `file` is elsewhere. The
     * model writes it with its own write tool, then answers `reply` to the tool result.
     */
    const worktreeWrite = async (
      target: (layout: WorktreeLayout) => string,
      reply: string,
    ): Promise<{ scene: W; layout: WorktreeLayout; file: string; sent: ContractSend }> => {
      const scene = await open();
      const layout = createWorktreeLayout(scene.work);
      const file = path.join(target(layout), HANDOFF_FILE.path);
      scene.server.setScript({
        steps: [
          {
            match: { text: "TURN-1", afterToolResult: false, hasTools: true },
            writeFile: { path: file, content: HANDOFF_FILE.content },
          },
          { match: { afterToolResult: true }, reply },
        ],
      });
      const tools = world.toolCall?.tools;
      const sent = await send(scene, {
        prompt: "TURN-1 hand the plan over",
        cwd: layout.worktree,
        contextHandoffDir: layout.contextHandoff,
        ...(tools ? { tools } : {}),
      });
      return { scene, layout, file, sent };
    };

    contractCase(
      "handoffWrite",
      "writes into context_handoff/ from a worktree run: the file exists outside its cwd and one tool_call is reported",
      async () => {
        const before = Date.now();
        const { scene, layout, file, sent } = await worktreeWrite((l) => l.contextHandoff, "handed over");
        expectOk(sent);
        expect(sent.result.text).toBe("handed over");
        expect(readFileSync(file, "utf8")).toBe(HANDOFF_FILE.content);
        expect(sent.observer.toolCalls).toHaveLength(1);
        const call = sent.observer.toolCalls[0]!;
        expect(call).toMatchObject({ tool: "write", name: toolCallName("write", { path: file }), ok: true });
        expect(call.startedAt.getTime()).toBeGreaterThanOrEqual(before);
        // Nothing landed in the checkout (its data dir is ignored, as sssf init makes it).
        expect(gitStatus(layout.checkout)).toBe("");
        expect(scene.server.egress()).toEqual([]);
        await world.handoffWrite?.expect?.(scene, sent, layout);
      },
    );

    contractCase(
      "outsideWrite",
      "refuses a write outside both its cwd and context_handoff/ in a worktree run",
      async () => {
        const { scene, layout, file, sent } = await worktreeWrite((l) => l.outside, "could not write");
        expectOk(sent);
        // The model was told (its tool result came back) and the file does not exist.
        expect(sent.result.text).toBe("could not write");
        expect(wire.requests(scene).map((request) => request.step)).toContain(1);
        expect(existsSync(file)).toBe(false);
        expect(gitStatus(layout.checkout)).toBe("");
        // A refused write is never reported as done (at most one failed tool_call).
        expect(sent.observer.toolCalls.length).toBeLessThanOrEqual(1);
        expect(sent.observer.toolCalls.filter((call) => call.ok)).toEqual([]);
        expect(scene.server.egress()).toEqual([]);
        await world.outsideWrite?.expect?.(scene, sent, layout);
      },
    );

    boxedWriteCases({ world, open, send, contractCase });

    contractCase("usage", "reports each send's own usage, cost and context size", async () => {
      const [u1, u2] = world.usage.script ?? CONTRACT_USAGE;
      const scene = await open({
        steps: [
          { match: { text: "TURN-1" }, usage: u1 },
          { match: { text: "TURN-2" }, usage: u2 },
        ],
      });
      const first = await send(scene, { prompt: "TURN-1 count" });
      // Resumed by sssf's session id alone, as when the engine lost the native id.
      const second = await send(scene, { prompt: "TURN-2 count", resume: true });
      for (const [sent, counts] of [
        [first, u1],
        [second, u2],
      ] as const) {
        expectOk(sent);
        const { costUsd, ...tokens } = sent.result.usage;
        expect(tokens).toEqual({
          inputTokens: counts.input,
          outputTokens: counts.output,
          cacheReadTokens: counts.cacheRead ?? 0,
          cacheWriteTokens: counts.cacheWrite ?? 0,
        });
        const cost = world.usage.cost(counts);
        if (cost === "positive") expect(costUsd).toBeGreaterThan(0);
        else expect(costUsd).toBeCloseTo(cost, 12);
        expect(sent.result.contextTokens).toBe(world.usage.contextTokens(counts));
        // One model reply per send: one onUsage, with the send's usage.
        expect(sent.observer.usages).toEqual([sent.result.usage]);
      }
      expect(markersOf(second.result.text)).toEqual(["TURN-1", "TURN-2"]);
      const [cost1, cost2] = [world.usage.cost(u1), world.usage.cost(u2)];
      if (typeof cost1 === "number" && typeof cost2 === "number")
        expect(first.result.usage.costUsd + second.result.usage.costUsd).toBeCloseTo(cost1 + cost2, 12);
      expect(scene.server.egress()).toEqual([]);
      await world.usage.expect?.(scene, first, second);
    });

    const bigTimeouts = world.bigPrompt?.timeouts ?? { idleMs: 60_000, wallMs: 120_000 };
    contractCase(
      "bigPrompt",
      "takes a 1 MB prompt and a 1 MB system prompt without putting them in argv",
      async () => {
        // A short scripted reply: the echo would stream the megabyte back.
        const scene = await open({
          steps: [{ match: { text: "BIG-PROMPT" }, reply: "got it all", usage: { input: 1000, output: 5 } }],
        });
        const prompt = oneMebibyte("TURN-1 BIG-PROMPT ", "x", " END-OF-PROMPT");
        const systemPrompt = oneMebibyte("BIG-SYSTEM ", "s", " END-OF-SYSTEM");
        const sent = await send(scene, { prompt, systemPrompt, tools: [], timeouts: bigTimeouts });
        expectOk(sent);
        expect(sent.result.text).toBe("got it all");
        expect(sent.observer.commands).toHaveLength(1);
        const argv = sent.observer.commands[0]!;
        expect(JSON.stringify(argv).length).toBeLessThan(ARGV_LIMIT);
        const request = wire.requests(scene)[0];
        expect(wire.userTexts(request).at(-1)).toContain(prompt);
        expect(wire.systemText(request)).toContain(systemPrompt);
        expect(scene.server.egress()).toEqual([]);
        await world.bigPrompt?.expect?.(scene, sent);
      },
      Math.max(CASE_TIMEOUT_MS, bigTimeouts.wallMs + 40_000),
    );

    contractCase("toolsNone", "offers the model no tools for tools: []", async () => {
      const scene = await open();
      const sent = await send(scene, { prompt: "TURN-1 plain", ...world.toolsNone?.request, tools: [] });
      expectOk(sent);
      expect(markersOf(sent.result.text)).toEqual(["TURN-1"]);
      const requests = wire.requests(scene);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) expect(wire.offeredTools(request)).toEqual([]);
      expect(scene.server.egress()).toEqual([]);
      await world.toolsNone?.expect?.(scene, sent);
    });

    contractCase(
      "hang",
      "kills a hung model on the idle timeout and leaves no process of the agent",
      async () => {
        const scene = await open({ steps: [{ match: { text: "HANG" }, hang: true }] });
        const sent = await send(scene, { prompt: "TURN-1 HANG", timeouts: world.hang.timeouts });
        expect(sent.result).toMatchObject({ ok: false, errorKind: "idle_timeout" });
        // The CLI got as far as the model request, which never answered.
        expect(wire.requests(scene).map((request) => request.status)).toContain(null);
        expect(sent.observer.pids).toHaveLength(1);
        expect(processGroupAlive(sent.observer.pids[0]!)).toBe(false);
        expect(scene.server.egress()).toEqual([]);
        await world.hang.expect?.(scene, sent);
      },
    );

    contractCase(
      "unknownModel",
      "refuses an unknown model clearly, naming it, before starting the CLI",
      async () => {
        const { model } = world.unknownModel;
        const scene = await open();
        const sent = await send(scene, { model, ...world.unknownModel.request?.(scene) });
        expect(sent.result).toMatchObject({ ok: false, errorKind: "model_unknown" });
        expect(sent.result.error).toContain(`"${model}"`);
        expect(sent.observer.pids).toEqual([]);
        expect(scene.server.requests()).toEqual([]);
        expect(scene.server.egress()).toEqual([]);
        // A runtime that can tell before any send says the same of the model (sssf run's config check).
        if (runtime.checkModel !== undefined) {
          const { command, env, cwd } = sent.request;
          const checked = await runtime.checkModel({ model, command, env: env ?? {}, cwd });
          expect(checked).toMatchObject({ status: "unknown" });
          if (checked.status === "unknown") expect(sent.result.error).toContain(checked.error);
          expect(scene.server.requests()).toEqual([]);
        }
        await world.unknownModel.expect?.(scene, sent);
      },
    );
  });
}

/**
 * A text of exactly 1 MiB (1,048,576 characters) between `head` and `tail`: the most codex takes as a
 * turn's input ("Input exceeds the maximum length of 1048576 characters" beyond).
 */
function oneMebibyte(head: string, fill: string, tail: string): string {
  return `${head}${fill.repeat(1024 * 1024 - head.length - tail.length)}${tail}`;
}
