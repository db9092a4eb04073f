/**
 * A worker's warm cache of what its runs load (docs/cluster.md#costs): a run's workflow module and
 * config are its base commit's, so they are loaded once per commit and workflow, from a checkout of
 * that commit the cache keeps (`<work-dir>/commits/<commit>`): a workflow module that reads files next
 * to itself finds them there for as long as it is cached. Each run gets the config with every path
 * under that checkout moved under its own checkout (its repo root, data dir, prompts…).
 */

import path from "node:path";
import type { Workflow } from "../api/run-api.js";
import type { SssfConfig } from "../config/config-types.js";
import type { WorkerRepo } from "./worker-repo.js";

type Loaded = { workflow: Workflow; config: SssfConfig };
type Load = (checkout: string, workflow: string) => Promise<Loaded>;

/** Commits whose checkout and modules a worker keeps; the least recently used goes first. */
const KEPT_COMMITS = 8;

/** Every string of `value` naming `from` or a path under it, named under `to` instead. */
function moved<T>(value: T, from: string, to: string): T {
  if (typeof value === "string") {
    if (value === from) return to as T;
    return (value.startsWith(`${from}${path.sep}`) ? to + value.slice(from.length) : value) as T;
  }
  if (Array.isArray(value)) return value.map((item) => moved(item, from, to)) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, moved(v, from, to)])) as T;
  return value;
}

/** A commit's kept checkout (ready once made) and, by workflow name, what was loaded from it. */
interface Kept {
  checkout: string;
  ready: Promise<void>;
  loads: Map<string, Promise<Loaded>>;
}

export class RunLoader {
  /** By commit: its kept checkout and, by workflow name, what was loaded from it. */
  readonly #commits = new Map<string, Kept>();

  constructor(
    readonly repo: WorkerRepo,
    readonly load: Load,
  ) {}

  /** The workflow `name` and config of `commit`, for a run whose own checkout of it is `checkout`. */
  async loadFor(commit: string, name: string, checkout: string): Promise<Loaded> {
    let kept = this.#commits.get(commit);
    if (kept === undefined) {
      const dir = path.join(this.repo.workDir, "commits", commit);
      kept = { checkout: dir, ready: this.repo.checkoutFor(dir, commit), loads: new Map() };
      this.#commits.set(commit, kept);
      // A checkout that could not be made is not kept: the next run tries again.
      kept.ready.catch(() => this.#commits.delete(commit));
      await this.#evict();
    } else {
      // Most recently used last.
      this.#commits.delete(commit);
      this.#commits.set(commit, kept);
    }
    await kept.ready;
    const entry = kept;
    let loading = entry.loads.get(name);
    if (loading === undefined) {
      loading = this.load(entry.checkout, name);
      entry.loads.set(name, loading);
      // A failed load (a workflow that does not load) is not kept: the next run reads it again.
      loading.catch(() => entry.loads.delete(name));
    }
    const { workflow, config } = await loading;
    return { workflow, config: moved(config, entry.checkout, checkout) };
  }

  async #evict(): Promise<void> {
    while (this.#commits.size > KEPT_COMMITS) {
      const [oldest, entry] = this.#commits.entries().next().value as [string, Kept];
      this.#commits.delete(oldest);
      await entry.ready.then(
        () => this.repo.removeCheckout(entry.checkout),
        () => undefined,
      );
    }
  }
}
