import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callStepInputs } from "../../src/engine/call-agent.js";
import type { CallContext } from "../../src/engine/call-context.js";
import { callContract } from "../../src/engine/call-contract.js";
import { inputHash } from "../../src/engine/durable/input-hash.js";
import type { RunRoots } from "../../src/engine/durable/run-roots.js";
import { renderCall } from "../../src/engine/render-call.js";
import type { DefaultAgentSpec } from "../../src/workflows/prompts/agent-spec.js";
import { defaultAgents, defaultPrompts, sddAgents } from "../../src/workflows/prompts/default-prompts.js";

// The property behind exactly-once failover between workers of other folders, and behind resuming a
// moved repository: the replay key of every step, over the prompts `sssf init` writes, is the same
// under any two folder layouts, and differs as soon as what the step is given differs.

const ADW = "ab12cd34";
const AGENTS: DefaultAgentSpec[] = [...defaultAgents(), ...sddAgents()];
const prompts = mkdtempSync(path.join(tmpdir(), "sssf-layouts-"));
afterAll(() => rmSync(prompts, { recursive: true, force: true }));
for (const spec of AGENTS) {
  writeFileSync(path.join(prompts, `${spec.name}.system.md`), spec.system);
  writeFileSync(path.join(prompts, `${spec.name}.user.md`), defaultUser(spec));
}

/** The user.md `sssf init` writes for `spec`. */
function defaultUser(spec: DefaultAgentSpec): string {
  return defaultPrompts(spec.name).user;
}

/** A small deterministic generator, so a failing layout can be told again. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type LayoutKind = "worktree" | "in-place" | "worker";

/**
 * A random folder layout of one attempt of a run of `kind`: a local run in a worktree or in place, or
 * a cluster worker's (its sessions outside the run's checkout). Two attempts of one run share its kind.
 */
function randomLayout(random: () => number, kind: LayoutKind): RunRoots {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const name = () =>
    Array.from({ length: 1 + Math.floor(random() * 10) }, () =>
      pick([..."abcdefghijklmnopqrstuvwxyz0123456789._-"]),
    )
      .join("")
      .replace(/^[.-]+/, "d");
  const base = `/${Array.from({ length: 1 + Math.floor(random() * 4) }, name).join("/")}`;
  const checkout = kind === "worker" ? `${base}/runs/${ADW}` : `${base}/${name()}`;
  const dataDir = `${checkout}/adws/adw_data`;
  const sessions = kind === "worker" ? `${base}/sessions` : `${dataDir}/sessions`;
  const worktree = kind === "in-place" ? null : `${dataDir}/.worktrees/${ADW}`;
  return {
    run_root: worktree ?? checkout,
    worktree,
    checkout,
    session: `${sessions}/${ADW}`,
    sessions,
    data_dir: dataDir,
  };
}

/** What a phase is handed in `roots`: the request and the envelope before it name files there. */
function handed(roots: RunRoots, change: { request?: string; summary?: string } = {}) {
  return {
    request:
      change.request ??
      `Fix the crash in ${roots.checkout}/src/app.ts; the log is ${roots.run_root}/crash.log`,
    previous: {
      status: "success",
      summary: change.summary ?? "planned",
      artifacts: [`${roots.session}/context_handoff/plan.md`, `${roots.run_root}/docs/plan.md`],
      diff_path: `${roots.session}/changes/p02-build.diff`,
    },
  };
}

/** The key of `spec`'s call step, rendered by the engine's renderCall in `roots`. */
function callKey(
  spec: DefaultAgentSpec,
  roots: RunRoots,
  change: { request?: string; summary?: string } = {},
) {
  const { request, previous } = handed(roots, change);
  const context = {
    run: { adwId: ADW, contextHandoffDir: `${roots.session}/context_handoff` },
    agent: {
      sandbox: { boxed: false },
      config: {
        name: spec.name,
        systemPromptPath: path.join(prompts, `${spec.name}.system.md`),
        userPromptPath: path.join(prompts, `${spec.name}.user.md`),
      },
    },
  } as unknown as CallContext;
  const contract = callContract(spec.outputType, spec.format);
  const rendered = renderCall(context, { outputType: spec.outputType, prompt: request }, contract, previous);
  return {
    rendered,
    key: inputHash(callStepInputs(spec.name, spec.outputType, spec.format, rendered, previous), roots),
  };
}

/** The keys of a code phase's and an engineer phase's steps, and of the phase itself, in `roots`. */
function otherKeys(roots: RunRoots): string[] {
  const { previous } = handed(roots);
  return [
    { suite: "test", command: ["node", "check.mjs"] },
    { suite: "test", command: ["node", "check.mjs"], commit: "0123456789abcdef0123456789abcdef01234567" },
    { message: `Build: ${roots.run_root}/src/app.ts fixed` },
    { question: `ship ${roots.run_root}/src/app.ts?`, details: previous },
    { workflow: "plan-build", name: "build", kind: "agent", owner: "builder", previous },
  ].map((inputs) => inputHash(inputs, roots));
}

describe("replay keys under any two folder layouts", () => {
  const random = generator(20261207);
  const kinds: LayoutKind[] = ["worktree", "in-place", "worker"];
  const pairs = Array.from({ length: 30 }, (_, i) => {
    const kind = kinds[i % kinds.length] as LayoutKind;
    return [randomLayout(random, kind), randomLayout(random, kind)] as const;
  });

  it("every init agent's call renders its context_handoff_dir, and its key is the same in both layouts", () => {
    for (const [one, two] of pairs) {
      for (const spec of AGENTS) {
        const here = callKey(spec, one);
        const there = callKey(spec, two);
        // The prompt really spells the folders (else the property would hold vacuously)…
        expect(here.rendered.user, spec.name).toContain(`${one.session}/context_handoff`);
        expect(there.rendered.user, spec.name).toContain(`${two.session}/context_handoff`);
        // …and the key names them: equal wherever the run's folders are.
        expect(there.key, `${spec.name}: ${JSON.stringify([one, two])}`).toBe(here.key);
      }
      expect(otherKeys(two)).toEqual(otherKeys(one));
    }
  });

  it("a real change of input still changes the key", () => {
    const [[one, two]] = pairs as unknown as [[RunRoots, RunRoots]];
    for (const spec of AGENTS) {
      const key = callKey(spec, one).key;
      expect(callKey(spec, two, { request: "Fix the crash in src/other.ts" }).key, spec.name).not.toBe(key);
      expect(callKey(spec, two, { summary: "planned otherwise" }).key, spec.name).not.toBe(key);
    }
    // Another file under the same root, or a path outside every root, is another input.
    const message = (roots: RunRoots, file: string) =>
      inputHash({ message: `${roots.run_root}/${file}` }, roots);
    expect(message(two, "src/b.ts")).not.toBe(message(one, "src/a.ts"));
    expect(inputHash({ message: "/etc/one" }, two)).not.toBe(inputHash({ message: "/etc/two" }, one));
    // Another text of the prompt file is another input too.
    const spec = AGENTS[0] as DefaultAgentSpec;
    const file = path.join(prompts, `${spec.name}.user.md`);
    const key = callKey(spec, one).key;
    writeFileSync(file, defaultUser(spec).replace("## Task\n\n", "## Task\n\nAlso run the linter.\n\n"));
    try {
      expect(callKey(spec, two).key).not.toBe(key);
    } finally {
      writeFileSync(file, defaultUser(spec));
    }
  });
});
