/**
 * The sends of one run as their write boundaries see each other: which are in flight, which overlapped,
 * what each named and kept. Checkpoints and settles of one run take turns, so a settle's restorations
 * never interleave with another send's snapshot.
 */

import type { TreeListing } from "./trees/tree-listing.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import type { BoundaryJudge } from "./write-boundary-rules.js";

/** One send from its boundary's checkpoint to the end of its settle. */
export interface BoundarySend {
  readonly agent: string;
  readonly judge: BoundaryJudge;
  /** Repo-relative paths its tool calls named so far (grows while it runs). */
  readonly named: Set<string>;
  /** Paths it changed inside its own boundary, recorded when it settled. */
  readonly kept: Set<string>;
  /** Paths another send's settle restored while this one was open: sssf's doing, not this agent's. */
  readonly restoredByOthers: Set<string>;
  /** Breaches another send's settle put (also) on this send; reported with this send's own. */
  readonly blamed: BoundaryBreach[];
  /** Logical time of the checkpoint. */
  readonly openedAt: number;
  /** Logical time the settle ended; null while in flight. */
  closedAt: number | null;
}

/** The other sends of the run as one send's settle sees them. */
export interface SiblingSends {
  /** Open now (checkpointed, not settled). */
  inFlight: BoundarySend[];
  /** Settled after this send's checkpoint: they overlapped it. */
  settled: BoundarySend[];
}

/**
 * The registry of a run's sends, shared by every agent's boundary. With one send at a time it holds
 * one record and changes nothing. Never throws.
 */
export class BoundarySends {
  /** The latest stat listing of each watched path (by real path), so a run's boundaries store each file once. */
  readonly listings = new Map<string, TreeListing>();
  private clock = 0;
  private sends: BoundarySend[] = [];
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` once every earlier `exclusive` work of this run has ended; resolves or rejects like it. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(work);
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Records a send whose checkpoint is being taken. */
  open(agent: string, judge: BoundaryJudge): BoundarySend {
    const send: BoundarySend = {
      agent,
      judge,
      named: new Set(),
      kept: new Set(),
      restoredByOthers: new Set(),
      blamed: [],
      openedAt: ++this.clock,
      closedAt: null,
    };
    this.sends.push(send);
    return send;
  }

  /** Marks `send` settled; forgets settled sends no open send overlapped. */
  close(send: BoundarySend): void {
    send.closedAt = ++this.clock;
    const open = this.sends.filter((s) => s.closedAt === null);
    const oldest = Math.min(...open.map((s) => s.openedAt));
    this.sends = this.sends.filter((s) => s.closedAt === null || s.closedAt > oldest);
  }

  /** The sends other than `send` that are in flight, or settled since `send` was opened. */
  siblings(send: BoundarySend): SiblingSends {
    const others = this.sends.filter((s) => s !== send);
    return {
      inFlight: others.filter((s) => s.closedAt === null),
      settled: others.filter((s) => s.closedAt !== null && s.closedAt > send.openedAt),
    };
  }
}
