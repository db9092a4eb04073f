import { runQualitySuite } from "../../src/code/quality.js";
import type { QualitySuiteConfig } from "../../src/config/config-types.js";
import type { GateContext, PathChange } from "../../src/gates/gate.js";

/** A real gate context for `repoRoot`: fixed phase changes, suites run as real processes. */
export function gateContext(
  repoRoot: string,
  options: { changes?: PathChange[] | (() => Promise<PathChange[]>); suites?: Record<string, string[]> } = {},
): GateContext {
  const changes = options.changes ?? [];
  return {
    repoRoot,
    adwId: "a1b2c3d4",
    phaseName: "build",
    contextHandoffDir: `${repoRoot}/context_handoff`,
    phaseChanges: typeof changes === "function" ? changes : async () => changes,
    async runSuite(name) {
      const command = options.suites?.[name];
      if (!command) throw new Error(`no suite ${name}`);
      const suite: QualitySuiteConfig = { name, command, timeoutMs: 30_000, env: {} };
      return runQualitySuite(suite, repoRoot);
    },
  };
}
