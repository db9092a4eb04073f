import type { SendHook } from "../../src/api/send-hook.js";
import { writeBoundaryFor } from "../../src/boundary/write-boundary.js";
import { writeBoundaryHook } from "../../src/boundary/write-boundary-hook.js";
import { collectNamedPaths } from "../../src/engine/send/named-paths-hook.js";
import { sandboxRefusalsHook } from "../../src/engine/send/sandbox-refusals-hook.js";
import type { SendHook as PublicSendHook } from "../../src/index.js";
import { describeSendHookContract } from "./send-hook-contract.js";
import { ok } from "./workflow-fixture.js";

// Every built-in hook of a run (docs/send-hooks.md, "The hooks of a run"), in their order.
describeSendHookContract("named_paths", { make: (repo) => collectNamedPaths(repo.dir).hook });

describeSendHookContract("write_boundary", {
  // A second boundary beside the engine's own, narrower than the agent's: it alone sees the breach.
  make(repo) {
    const agent = repo.config.agents[0];
    if (agent === undefined) throw new Error("the repo has no agent");
    const narrower = { ...agent, writes: ["src/**"] };
    return writeBoundaryHook(writeBoundaryFor(repo.config, narrower, repo.config.sessionsDir));
  },
  provoke: {
    turns: [
      {
        reply: ok(),
        tool_calls: [
          { tool: "write", write_file: { path: "src/in.txt", content: "kept\n" } },
          { tool: "write", write_file: { path: "outside.txt", content: "no\n" } },
        ],
      },
    ],
    finding: /^write outside boundary: outside\.txt/,
  },
});

// Its findings need a boxed send (bubblewrap); test/sandbox covers those.
describeSendHookContract("sandbox_refusals", { make: () => sandboxRefusalsHook });

/** A user's hook, typed from the package's public entry: an async settle that fails a busy send. */
function toolCap(cap: number): PublicSendHook {
  return {
    name: "tool_cap",
    open() {
      let calls = 0;
      return {
        readsToolCalls: false,
        onToolCall: () => void calls++,
        async settle() {
          // Really asynchronous: the engine must wait for it.
          await new Promise((resolve) => setTimeout(resolve, 50));
          if (calls <= cap) return { findings: [], failure: null };
          return {
            findings: [
              {
                name: `tool cap: ${calls} calls`,
                payload: { calls, cap },
                line: `! ${calls} tool calls (cap ${cap})`,
              },
            ],
            failure: `${calls} tool calls in one send (cap ${cap})`,
          };
        },
      };
    },
  };
}

describeSendHookContract("a user's hook (runWorkflow sendHooks)", {
  make: (): SendHook => toolCap(4),
  provoke: {
    turns: [{ reply: ok(), tool_calls: Array.from({ length: 6 }, () => ({ tool: "bash", bash: "true" })) }],
    finding: /^tool cap: 6 calls$/,
  },
});
