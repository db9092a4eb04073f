/**
 * Who made a change when agents send at the same time. A snapshot diff cannot tell writers apart, so
 * the rule is: a path the settling agent's own tool calls named is its own; a path inside a sibling's
 * `writes` (a sibling in flight, or one that settled during this send and kept that path) is the
 * sibling's; anything else is a breach nobody was allowed to make, put on every agent that could have
 * made it. Protected files are never a sibling's.
 */

import type { PathChange } from "../gates/gate.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import type { BoundaryJudge } from "./write-boundary-rules.js";
import type { BoundarySend, SiblingSends } from "./write-boundary-sends.js";

/** The sides of a breach or a change: its path, and the other side of a rename. */
export function sidesOf(item: { path: string; previousPath?: string | undefined }): string[] {
  return item.previousPath ? [item.path, item.previousPath] : [item.path];
}

function siblingsPath(file: string, siblings: SiblingSends): boolean {
  return (
    siblings.inFlight.some((s) => s.judge(file) === null) ||
    siblings.settled.some((s) => s.kept.has(file) && s.judge(file) === null)
  );
}

/**
 * The judge a settle uses: the agent's own, except that a path outside it which its tool calls did not
 * name is passed (left alone) when sssf restored it for another send, or when it lies inside a
 * sibling's `writes` and is not protected. Records every path the agent keeps in `send.kept`. Never throws.
 */
export function settleJudge(send: BoundarySend, siblings: SiblingSends): BoundaryJudge {
  return (file) => {
    const rule = send.judge(file);
    if (rule === null) {
      send.kept.add(file);
      return null;
    }
    if (send.named.has(file)) return rule;
    if (send.restoredByOthers.has(file)) return null;
    if (rule !== "protected" && siblingsPath(file, siblings)) return null;
    return rule;
  };
}

/** Which breaches are the settling send's, and which go to siblings still in flight. */
export interface Blame {
  own: BoundaryBreach[];
  others: Map<BoundarySend, BoundaryBreach[]>;
}

/**
 * Puts each breach a settle found (and already undid) on the agents that could have made it: the
 * settling agent when its tool calls named a side (or `onlyNamed` says only its tool calls could
 * reveal the breach: by default a path outside the run root); else the in-flight siblings whose tool
 * calls named a side; else the settling agent and every sibling in flight, each with a note saying
 * so. Sends that settled earlier are never blamed: their own settle saw everything they wrote. Never
 * throws.
 */
export function assignBlame(
  send: BoundarySend,
  inFlight: readonly BoundarySend[],
  breaches: readonly BoundaryBreach[],
  onlyNamed: (breach: BoundaryBreach) => boolean = (breach) => breach.rule === "outside_root",
): Blame {
  const blame: Blame = { own: [], others: new Map() };
  const give = (to: BoundarySend, breach: BoundaryBreach) =>
    blame.others.set(to, [...(blame.others.get(to) ?? []), breach]);
  for (const breach of breaches) {
    const sides = sidesOf(breach);
    if (onlyNamed(breach) || inFlight.length === 0 || sides.some((p) => send.named.has(p))) {
      blame.own.push(breach);
      continue;
    }
    const namers = inFlight.filter((s) => sides.some((p) => s.named.has(p)));
    if (namers.length > 0) {
      const note = `restored when ${send.agent}'s send settled`;
      for (const namer of namers) give(namer, { ...breach, note: breach.note ?? note });
      continue;
    }
    const suspects = [send.agent, ...inFlight.map((s) => s.agent)];
    const note = `changed while ${suspects.join(", ")} were sending, and no tool call named it: reported on each`;
    const shared = { ...breach, note: breach.note ? `${breach.note}; ${note}` : note };
    blame.own.push(shared);
    for (const sibling of inFlight) give(sibling, shared);
  }
  return blame;
}

/**
 * The changes a gate of an agent running beside others may count as its own: those with a side inside
 * its boundary or named by its tool calls (`named`: repo-relative paths). Never throws.
 */
export function ownChanges(
  changes: readonly PathChange[],
  judge: BoundaryJudge,
  named: ReadonlySet<string>,
): PathChange[] {
  return changes.filter((change) => sidesOf(change).some((p) => judge(p) === null || named.has(p)));
}
