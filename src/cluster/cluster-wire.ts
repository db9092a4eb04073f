/**
 * What crosses Restate between the CLI, the pool and the workers (docs/cluster.md). Wire fields are
 * snake_case like the trace's; every body is checked on arrival.
 */

import { z } from "zod";
import { ADW_ID_PATTERN } from "../session/adw-id.js";

/** The Restate workflow a run is: keyed by its adw_id. */
export const RUN_SERVICE = "sssfRun";

/** `sssf run --engine restate`: what a worker needs to run it, from any machine. */
export const ClusterRunRequest = z
  .object({
    /** Any id `--adw-id` accepts locally (minted ids are 8 hex characters). */
    adw_id: z.string().regex(ADW_ID_PATTERN),
    workflow: z.string().min(1),
    request: z.string(),
    /** The commit the run's branch starts from; it must be on the shared remote. */
    base_commit: z.string().regex(/^[0-9a-f]{40,64}$/),
    agent: z.string().min(1).nullable(),
    yes: z.boolean(),
    /** Who submitted it, for the trace: `user@host`. */
    submitted_by: z.string(),
  })
  .strict();
export type ClusterRunRequest = z.output<typeof ClusterRunRequest>;

/** What the run's invocation returns once it ended. */
export const ClusterRunResult = z.object({
  adw_id: z.string(),
  accepted: z.boolean(),
  reason: z.string(),
  /** The run's branch on the remote, or null when the run committed nothing. */
  branch: z.string().nullable(),
  head: z.string().nullable(),
  /** The run left uncommitted work: this ref on the remote holds it as a commit on top of `head`. */
  wip_ref: z.string().nullable(),
  worker: z.string(),
});
export type ClusterRunResult = z.output<typeof ClusterRunResult>;

/**
 * An engineer's answer to one question of a run, resolved into its durable promise. `key` names the
 * question like the journal names its step (`p<position>.<phase>.ask#<n>`), so an answer given while
 * no worker waits (its worker died) answers the same question asked again by the worker taking over.
 */
export const ClusterAnswer = z
  .object({
    key: z.string().min(1).max(300),
    approved: z.boolean(),
    reason: z.string(),
    by: z.string(),
    at: z.string(),
  })
  .strict();
export type ClusterAnswer = z.output<typeof ClusterAnswer>;

/** The durable promise the answer to one question goes into. */
export function answerPromise(key: string): string {
  return `answer-${key}`;
}

/** What a worker tells the pool every second. */
export const WorkerBeat = z
  .object({
    id: z.string().min(1),
    url: z.string().url(),
    host: z.string(),
    pid: z.number().int(),
    slots: z.number().int().min(1),
    runs: z.array(z.object({ adw_id: z.string(), workflow: z.string(), started_at: z.string() })),
    started_at: z.string(),
    /** The worker stops taking runs (it is draining before it exits). */
    draining: z.boolean(),
  })
  .strict();
export type WorkerBeat = z.output<typeof WorkerBeat>;

/** A worker as `sssf workers` lists it. */
export type PoolWorker = WorkerBeat & { last_seen: string; live: boolean; in_flight: number };
