/**
 * `startFakeModelRun`: everything a workflow run needs to use the fake model instead of a real one,
 * in one handle: the server, pi's agent dir and a scratch HOME, the env every agent gets (base URLs,
 * dummy keys, the egress trap), a config with that env laid over every agent, and a send hook that
 * fails the phase whose send tried to leave the machine. `sssf run --fake-script` is built on it.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SendHook } from "../../api/send-hook.js";
import type { SssfConfig } from "../../config/config-types.js";
import { fakeModelEnv } from "./fake-model-env.js";
import { createFakeModelServer } from "./fake-model-server.js";
import { FAKE_PI_MODEL, writeFakePiWorld } from "./pi-agent-dir.js";
import type { EgressAttempt, FakeModelServer, FakeScript } from "./types.js";

/** Options of `startFakeModelRun`. */
export interface StartFakeModelRunOptions {
  /** The script the server plays (default: no steps, echo fallback). */
  script?: FakeScript;
  /** JSONL file every request and egress attempt is appended to. */
  logFile?: string;
  /**
   * Where pi's agent dir (`pi-agent/`) and the scratch HOME (`home/`) go; kept by `close()`. Default: a
   * new folder in the OS temp dir, removed by `close()`.
   */
  dir?: string;
}

/** A running fake model and the world that points agents at it. */
export interface FakeModelRun {
  server: FakeModelServer;
  /** Holds `pi-agent/` and `home/`. */
  dir: string;
  /** `$PI_CODING_AGENT_DIR`: models.json (provider `fake`) and settings.json (its default model). */
  piAgentDir: string;
  /** The pi model the agent dir defines and makes the default: `fake/fake-model`. */
  piModel: string;
  /** Every agent's environment: `fakeModelEnv(url)`, `PI_CODING_AGENT_DIR`, HOME and XDG folders. */
  env: Record<string, string>;
  /** `config` with `env` laid over every agent's own env (the fake's variables win). Never throws. */
  configure(config: SssfConfig): SssfConfig;
  /**
   * Fails the phase of any send during which the fake refused an egress attempt (with parallel
   * agents, every send open at the time). Pass it in `runWorkflow({ sendHooks })`.
   */
  egressHook: SendHook;
  /** Closes the server and removes `dir` when it was made here. Idempotent. */
  close(): Promise<void>;
}

/** `CONNECT api.example.com:443, GET http://x/` for a message. Never throws. */
export function describeEgress(attempts: readonly EgressAttempt[]): string {
  const targets = [...new Set(attempts.map((attempt) => `${attempt.method} ${attempt.target}`))];
  return targets.slice(0, 5).join(", ") + (targets.length > 5 ? ` and ${targets.length - 5} more` : "");
}

function egressHookOf(server: FakeModelServer): SendHook {
  return {
    name: "fake_model_egress",
    open() {
      const before = server.egress().length;
      return {
        settle() {
          const attempts = server.egress().slice(before);
          if (attempts.length === 0) return { findings: [], failure: null };
          return {
            findings: attempts.map((attempt) => ({
              name: "fake_model_egress",
              payload: { method: attempt.method, target: attempt.target, time: attempt.time },
              line: `egress refused by the fake model: ${attempt.method} ${attempt.target}`,
            })),
            failure: `${attempts.length} attempt(s) to reach the network during the send (${describeEgress(attempts)}), refused by the fake model's egress trap`,
          };
        },
      };
    },
  };
}

/**
 * Starts the fake model server and writes pi's world for it. Rejects on an invalid script, a log
 * file that cannot be created or a file system error (the server is closed again then).
 *
 * @example
 * const fake = await startFakeModelRun({ script: { steps: [{ match: { hasTools: true }, reply: '{"status":"success"}' }] } });
 * try {
 *   const outcome = await runWorkflow({ workflow, request, config: fake.configure(config), sendHooks: [fake.egressHook] });
 * } finally {
 *   await fake.close();
 * }
 */
export async function startFakeModelRun(options: StartFakeModelRunOptions = {}): Promise<FakeModelRun> {
  const server = await createFakeModelServer({
    ...(options.script ? { script: options.script } : {}),
    ...(options.logFile ? { logFile: options.logFile } : {}),
  });
  const owned = options.dir === undefined;
  let dir = "";
  try {
    dir = path.resolve(options.dir ?? mkdtempSync(path.join(tmpdir(), "sssf-fake-run-")));
    const world = writeFakePiWorld(dir, server.url);
    const env = { ...fakeModelEnv(server.url), ...world.env };
    let closing: Promise<void> | undefined;
    return {
      server,
      dir,
      piAgentDir: world.agentDir,
      piModel: FAKE_PI_MODEL,
      env,
      configure: (config) => ({
        ...config,
        agents: config.agents.map((agent) => ({ ...agent, env: { ...agent.env, ...env } })),
      }),
      egressHook: egressHookOf(server),
      close: () => {
        closing ??= server.close().then(() => {
          if (owned) rmSync(dir, { recursive: true, force: true });
        });
        return closing;
      },
    };
  } catch (error) {
    await server.close();
    if (owned && dir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
