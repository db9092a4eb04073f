import type { Runtime } from "./runtime.js";

/** A runtime known by id before its module is loaded: `sssf --help` and `sssf sessions` load none. */
export interface LazyRuntime {
  id: string;
  load(): Promise<Runtime>;
}

/**
 * The one table from `coding_agent` ids to runtimes. The composition root (the CLI, the library
 * entry) builds it and hands it to the engine, which knows only the `Runtime` contract. Entries are
 * runtimes or lazy entries loaded on first use; a later `register` of an id replaces the earlier one.
 *
 * @example
 * const registry = new RuntimeRegistry([execRuntime, { id: "pi", load: async () => (await import("./pi/index.js")).piRuntime }]);
 * await registry.resolve("pi"); // the pi runtime, loaded now
 */
export class RuntimeRegistry {
  private readonly entries = new Map<string, Runtime | LazyRuntime>();

  constructor(entries: Iterable<Runtime | LazyRuntime> = []) {
    for (const entry of entries) this.register(entry);
  }

  /** Registers `entry` under its id, replacing any entry with that id. */
  register(entry: Runtime | LazyRuntime): this {
    this.entries.set(entry.id, entry);
    return this;
  }

  /** Every id, in registration order. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** A copy of this registry with `runtimes` registered over it (tests, benchmarks, in-process agents). */
  with(runtimes: Iterable<Runtime | LazyRuntime>): RuntimeRegistry {
    return new RuntimeRegistry([...this.entries.values(), ...runtimes]);
  }

  /** The runtime under `id` when it is loaded (or was registered loaded); undefined otherwise. */
  loaded(id: string): Runtime | undefined {
    const entry = this.entries.get(id);
    return entry !== undefined && isLoaded(entry) ? entry : undefined;
  }

  /**
   * The runtime registered under `id`, loading it first when it is lazy; undefined for an unknown id.
   * Rejects when a lazy entry's module fails to load or loads a runtime with another id.
   */
  async resolve(id: string): Promise<Runtime | undefined> {
    const entry = this.entries.get(id);
    if (entry === undefined || isLoaded(entry)) return entry;
    const runtime = await entry.load();
    if (runtime.id !== id) throw new Error(`runtime registered as "${id}" loaded as "${runtime.id}"`);
    this.entries.set(id, runtime);
    return runtime;
  }
}

function isLoaded(entry: Runtime | LazyRuntime): entry is Runtime {
  return "send" in entry;
}
