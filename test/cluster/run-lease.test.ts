import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEASE_TTL_MS, type LeaseHolder, RunLeases } from "../../src/cluster/run-lease.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";

const dir = mkdtempSync(path.join(tmpdir(), "sssf-lease-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const A: LeaseHolder = { worker: "worker-a", host: "host-a", pid: 11 };
const B: LeaseHolder = { worker: "worker-b", host: "host-b", pid: 22 };

/** Two workers' views of one lease table, on one clock the test moves. */
function leaseSuite(open: () => Promise<TraceStore>): void {
  let store: TraceStore;
  let clock = 1_000_000;
  const now = () => clock;
  let a: RunLeases;
  let b: RunLeases;
  beforeAll(async () => {
    store = await open();
    a = await RunLeases.open(store, now);
    b = await RunLeases.open(store, now);
  });
  afterAll(async () => {
    await store?.close();
  });

  /** B asks for the lease `adwId`; resolves how it got it, or "waiting" when it waits for A. */
  async function bAsks(adwId: string, invocation: string, seenDead = false): Promise<string> {
    const stop = new AbortController();
    let waited = false;
    const got = b
      .acquire(adwId, invocation, B, {
        signal: stop.signal,
        seenDead: async () => seenDead,
        waiting: () => {
          waited = true;
          stop.abort();
        },
      })
      .then(
        (acquired) => acquired.kind,
        () => (waited ? "waiting" : "aborted"),
      );
    return got;
  }

  const noWait = {
    signal: new AbortController().signal,
    seenDead: async () => false,
    waiting: () => {
      throw new Error("A never waits here");
    },
  };

  it("a live holder keeps its run: a retry elsewhere waits; it is taken once released or expired", async () => {
    expect((await a.acquire("run-1", "inv-1", A, noWait)).kind).toBe("new");
    // The same invocation retried on A (it still runs it) holds it again.
    expect((await a.acquire("run-1", "inv-1", A, noWait)).kind).toBe("held");
    expect(await bAsks("run-1", "inv-1")).toBe("waiting");
    // A renews while it runs: past the first expiry, B still waits.
    clock += LEASE_TTL_MS - 1;
    await a.renew(A.worker);
    clock += LEASE_TTL_MS - 1;
    expect(await bAsks("run-1", "inv-1")).toBe("waiting");
    expect((await a.read("run-1"))?.worker).toBe(A.worker);
    // A stops renewing (dead, or cut off): once the lease expired, B takes it, and A holds nothing.
    clock += 2;
    expect(await bAsks("run-1", "inv-1")).toBe("taken");
    expect((await a.read("run-1"))?.worker).toBe(B.worker);
    // A's renewals and release no longer touch it.
    await a.renew(A.worker);
    await a.release("run-1", A.worker);
    expect((await b.read("run-1"))?.worker).toBe(B.worker);
    // Released by B at the run's end: a later retry of the same invocation takes it at once.
    await b.release("run-1", B.worker);
    expect(await b.read("run-1")).toMatchObject({ worker: null, invocation: "inv-1" });
    expect((await a.acquire("run-1", "inv-1", A, noWait)).kind).toBe("taken");
  });

  it("a holder the pool saw die is taken over before its lease expires", async () => {
    expect((await a.acquire("run-2", "inv-2", A, noWait)).kind).toBe("new");
    expect(await bAsks("run-2", "inv-2", false)).toBe("waiting");
    expect(await bAsks("run-2", "inv-2", true)).toBe("taken");
    expect((await a.read("run-2"))?.worker).toBe(B.worker);
  });

  it("another invocation of the same adw_id is a second submission, never the first one's retry", async () => {
    expect((await a.acquire("run-3", "inv-3", A, noWait)).kind).toBe("new");
    await a.release("run-3", A.worker);
    const other = await b.acquire("run-3", "inv-other", B, noWait);
    expect(other).toMatchObject({ kind: "other-invocation", lease: { invocation: "inv-3" } });
    expect((await b.read("run-3"))?.worker).toBeNull();
  });

  it("two workers racing for a free lease: exactly one gets it", async () => {
    expect((await a.acquire("run-4", "inv-4", A, noWait)).kind).toBe("new");
    await a.release("run-4", A.worker);
    const C: LeaseHolder = { worker: "worker-c", host: "host-c", pid: 33 };
    const stopC = new AbortController();
    const results = await Promise.all([
      bAsks("run-4", "inv-4"),
      a
        .acquire("run-4", "inv-4", C, {
          signal: stopC.signal,
          seenDead: async () => false,
          waiting: () => stopC.abort(),
        })
        .then(
          (got) => got.kind,
          () => "waiting",
        ),
    ]);
    expect(results.sort()).toEqual(["taken", "waiting"]);
  });
}

describe("run leases, SQLite", () => {
  leaseSuite(() => openTraceStore(path.join(dir, "sssf.db")));

  it("the lease table does not make the trace look foreign", async () => {
    const file = path.join(dir, "other.db");
    const store = await openTraceStore(file);
    await RunLeases.open(store);
    await store.close();
    const again = await openTraceStore(file, { readonly: true });
    await again.close();
  });
});

describePostgres("run leases, PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  leaseSuite(() => openTraceStore(database.url));
});

describePostgres("run leases, PostgreSQL, workers starting together", () => {
  it("every worker of a fleet opening a fresh database at once gets the lease table", async () => {
    // The CI failure this stops: 3 workers, one fresh database, a duplicate key in pg_type for the loser.
    for (let round = 0; round < 4; round++) {
      const database = await createTestDatabase();
      try {
        const stores = await Promise.all(Array.from({ length: 8 }, () => openTraceStore(database.url)));
        const opened = await Promise.allSettled(stores.map((store) => RunLeases.open(store)));
        await Promise.all(stores.map((store) => store.close()));
        expect(opened.filter((o) => o.status === "rejected").map((o) => String(o.reason))).toEqual([]);
      } finally {
        await database.drop();
      }
    }
  });
});
