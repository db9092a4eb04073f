import type { PathChange } from "../code/path-change.js";
import type { SuiteResult } from "../code/quality.js";

export type { PathChange, SuiteResult };
/**
 * Gates verify an envelope's claims against facts after the agent is done. Leaf module: imports
 * nothing from the engine. A gate never judges quality; it checks what is mechanically checkable.
 */

export interface GateCheck {
  item: string;
  ok: boolean;
  note: string;
}

/** What one gate examined. Violations derive from failed checks; a green report says what it verified. */
export class GateReport {
  readonly gate: string;
  readonly checks: GateCheck[] = [];

  constructor(gate: string) {
    this.gate = gate;
  }

  check(item: string, ok: boolean, note = ""): this {
    this.checks.push({ item, ok, note });
    return this;
  }

  get ok(): boolean {
    return this.checks.every((c) => c.ok);
  }

  get violations(): string[] {
    return this.checks.filter((c) => !c.ok).map((c) => (c.note ? `${c.item}: ${c.note}` : c.item));
  }
}

/** What a gate may ask about the run. */
export interface GateContext {
  /** Absolute repo root: claimed paths resolve against it, and must stay inside it. */
  repoRoot: string;
  adwId: string;
  phaseName: string;
  contextHandoffDir: string;
  /** Paths this phase changed so far (snapshot at phase start vs now). */
  phaseChanges(): Promise<PathChange[]>;
  /** Runs a named quality suite from the config. */
  runSuite(name: string): Promise<SuiteResult>;
}

export interface Gate<E = unknown> {
  readonly name: string;
  /** True when the gate reads `phaseChanges()`: the engine then snapshots the tree before the call. */
  readonly usesPhaseChanges?: boolean;
  run(envelope: E, context: GateContext): GateReport | Promise<GateReport>;
}

/** How a gate uses the run, declared when it is defined. */
export interface GateOptions {
  /** The gate reads `context.phaseChanges()`: the engine snapshots the tree before the agent call. */
  usesPhaseChanges?: boolean;
}

/**
 * A gate named `name` whose `body` records one check per thing it examined on a fresh report.
 * `options.usesPhaseChanges` must be set when `body` reads `context.phaseChanges()`, so the engine
 * snapshots the tree before the call and pre-existing edits are not blamed on the agent.
 * @example const hasSummary = defineGate("hasSummary", (env: {summary: string}, _ctx, r) => r.check("summary", env.summary !== ""));
 */
export function defineGate<E>(
  name: string,
  body: (envelope: E, context: GateContext, report: GateReport) => void | Promise<void>,
  options: GateOptions = {},
): Gate<E> {
  return {
    name,
    usesPhaseChanges: options.usesPhaseChanges === true,
    async run(envelope, context) {
      const report = new GateReport(name);
      await body(envelope, context, report);
      return report;
    },
  };
}
