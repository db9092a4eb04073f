/**
 * The script being played: which steps are left, and which one answers a request. Selection depends
 * only on the request and on which steps were consumed, never on a call counter, so a side request
 * (a title or router call) cannot steal a step it does not match.
 */
import { describeProblems, parseFakeScript, parseFakeSteps } from "./script-schema.js";
import type { FakeMatch, FakeScript, FakeStep } from "./types.js";
import type { ParsedRequest } from "./wire-api.js";

/** True when every condition of `match` holds for `request`. Never throws. */
export function stepMatches(match: FakeMatch | undefined, request: ParsedRequest): boolean {
  if (!match) return true;
  if (match.text !== undefined && !request.lastUserText.includes(match.text)) return false;
  if (match.anywhere !== undefined && !request.bodyText.includes(match.anywhere)) return false;
  if (match.afterToolResult !== undefined && match.afterToolResult !== request.endsWithToolResult)
    return false;
  if (match.hasTools !== undefined && match.hasTools !== request.tools.length > 0) return false;
  if (match.api !== undefined && match.api !== request.api) return false;
  if (match.model !== undefined && match.model !== request.model) return false;
  if (match.nativeSchema !== undefined && match.nativeSchema !== (request.outputSchema !== null))
    return false;
  return true;
}

/** A mutable script with per-step consumption. */
export class ScriptState {
  private steps: FakeStep[] = [];
  private consumed: boolean[] = [];
  /** How many requests each step answered (a step with `times: n` is used up after n). */
  private uses: number[] = [];
  private fallbackMode: "echo" | "error" = "echo";

  constructor(script: FakeScript = { steps: [] }) {
    this.set(script);
  }

  /** What answers a request no step matches. */
  get fallback(): "echo" | "error" {
    return this.fallbackMode;
  }

  /** Replaces the script. Throws a TypeError naming each bad field. */
  set(script: FakeScript): void {
    const parsed = parseFakeScript(script);
    if (!parsed.ok) throw new TypeError(`invalid fake model script: ${describeProblems(parsed.problems)}`);
    this.steps = [...parsed.value.steps];
    this.consumed = this.steps.map(() => false);
    this.uses = this.steps.map(() => 0);
    this.fallbackMode = parsed.value.fallback ?? "echo";
  }

  /** Appends steps. Throws a TypeError naming each bad field. */
  enqueue(steps: FakeStep[]): void {
    const parsed = parseFakeSteps(steps);
    if (!parsed.ok) throw new TypeError(`invalid fake model steps: ${describeProblems(parsed.problems)}`);
    this.steps.push(...parsed.value);
    this.consumed.push(...parsed.value.map(() => false));
    this.uses.push(...parsed.value.map(() => 0));
  }

  /** Makes every step available again. */
  rewind(): void {
    this.consumed = this.steps.map(() => false);
    this.uses = this.steps.map(() => 0);
  }

  /** Steps in the script, consumed or not. */
  get size(): number {
    return this.steps.length;
  }

  /**
   * The first unconsumed step whose match holds, consumed once it answered `times` requests (default
   * 1) unless it repeats; undefined when none
   * matches. Never throws.
   */
  take(request: ParsedRequest): { step: FakeStep; index: number } | undefined {
    const index = this.steps.findIndex((step, i) => !this.consumed[i] && stepMatches(step.match, request));
    const step = this.steps[index];
    if (!step) return undefined;
    this.uses[index] = (this.uses[index] ?? 0) + 1;
    if (!step.repeat && this.uses[index]! >= (step.times ?? 1)) this.consumed[index] = true;
    return { step, index };
  }
}
