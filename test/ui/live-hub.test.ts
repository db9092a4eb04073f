import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTraceStore } from "../../src/trace/open-store.js";
import { rebuildDatabase } from "../../src/trace/rebuild.js";
import { Tracer } from "../../src/trace/tracer.js";
import type { LiveDelta, LiveSubscription, PhaseCounts, RunView } from "../../src/ui/server/api-types.js";
import type { LiveClient } from "../../src/ui/server/live-hub.js";
import { at, eventRow, phaseRow, sessionRow } from "../trace/trace-fixtures.js";
import { getJson, TraceWorld, waitFor } from "./ui-fixtures.js";

let world: TraceWorld;
beforeEach(async () => {
  world = await TraceWorld.open();
});
afterEach(() => world.cleanup());

const BASE = Date.parse("2026-05-01T10:00:00Z");

/** A live client that records what the hub sends it. */
function recorder(subscription: LiveSubscription) {
  const texts: string[] = [];
  const client: LiveClient & { texts: string[] } = {
    subscription,
    texts,
    send: (text) => {
      texts.push(text);
      return true;
    },
    close: () => {},
  };
  const messages = (event: string) =>
    texts
      .filter((t) => t.startsWith(`event: ${event}\n`))
      .map((t) => JSON.parse(t.slice(t.indexOf("data: ") + 6)) as LiveDelta);
  return { client, texts, deltas: () => messages("delta"), all: messages };
}

function toolCall(adwId: string, phase: number, n: number) {
  return eventRow(adwId, `evt_${adwId}_${phase}_${n}`, at(BASE, 1000 * phase + n), {
    phase_id: `ph_${adwId}_${phase}`,
    type: "tool_call",
    name: `bash: step ${n}`,
    agent: "builder",
    ok: 1,
  });
}

describe("the live hub", () => {
  it("sends each client only what it watches, once per tick for everyone", async () => {
    world.write({ table: "sessions", row: sessionRow("aaaa0001", at(BASE, 0)) });
    const { hub } = await world.app();
    const list = recorder({ adwId: null, phaseId: null });
    const run = recorder({ adwId: "aaaa0001", phaseId: null });
    const phase = recorder({ adwId: "aaaa0001", phaseId: "ph_aaaa0001_1" });
    const other = recorder({ adwId: "bbbb0002", phaseId: "ph_bbbb0002_1" });
    for (const r of [list, run, phase, other]) hub.add(r.client);
    expect(list.all("hello")).toEqual([{ tick: 0 }]);

    world.write(
      { table: "sessions", row: sessionRow("aaaa0001", at(BASE, 0), { input_tokens: 10 }) },
      { table: "phases", row: phaseRow("aaaa0001", 1, at(BASE, 1000)) },
      { table: "events", row: toolCall("aaaa0001", 1, 1) },
      { table: "events", row: toolCall("aaaa0001", 1, 2) },
    );
    await hub.poll();
    const [forList] = list.deltas();
    expect(forList?.tick).toBe(1);
    expect(forList?.sessions?.map((s) => s.input_tokens)).toEqual([10]);
    expect(forList?.phases).toBeUndefined();
    const [forRun] = run.deltas();
    expect(forRun?.phases?.map((p) => p.id)).toEqual(["ph_aaaa0001_1"]);
    expect(forRun?.counts).toEqual({ ph_aaaa0001_1: { tool_calls: 2 } });
    expect(forRun?.events).toBeUndefined();
    const [forPhase] = phase.deltas();
    expect(forPhase?.events?.map((e) => e.name)).toEqual(["bash: step 1", "bash: step 2"]);
    expect(forPhase?.events?.[0]?._v).toBeGreaterThan(0);
    expect(other.deltas().map((d) => Object.keys(d).sort())).toEqual([["sessions", "tick"]]);

    // Nothing committed since: no query result, no message.
    await hub.poll();
    expect(list.deltas()).toHaveLength(1);
  });

  it("gives a rewritten row a larger version, so clients keep the newest copy", async () => {
    world.write({ table: "phases", row: phaseRow("aaaa0001", 1, at(BASE, 0)) });
    const { hub } = await world.app();
    const run = recorder({ adwId: "aaaa0001", phaseId: null });
    hub.add(run.client);
    world.write({ table: "phases", row: phaseRow("aaaa0001", 1, at(BASE, 0), { status: "success" }) });
    await hub.poll();
    world.write({ table: "phases", row: phaseRow("aaaa0001", 1, at(BASE, 0), { status: "fail" }) });
    await hub.poll();
    const versions = run.deltas().map((d) => [d.phases?.[0]?.status, d.phases?.[0]?._v]);
    expect(versions.map((v) => v[0])).toEqual(["success", "fail"]);
    expect(Number(versions[1]?.[1])).toBeGreaterThan(Number(versions[0]?.[1]));
  });

  it("snapshot counts plus the increments of later ticks equal the counts of a fresh snapshot", async () => {
    world.write(
      { table: "sessions", row: sessionRow("aaaa0001", at(BASE, 0)) },
      { table: "phases", row: phaseRow("aaaa0001", 1, at(BASE, 1000)) },
      { table: "events", row: toolCall("aaaa0001", 1, 0) },
    );
    const ui = await world.app();
    const run = recorder({ adwId: "aaaa0001", phaseId: null });
    ui.hub.add(run.client);
    world.write({ table: "events", row: toolCall("aaaa0001", 1, 1) });
    await ui.hub.poll();
    // Written after the tick but before the snapshot: the snapshot must not count it yet.
    world.write({ table: "events", row: toolCall("aaaa0001", 1, 2) });
    const snapshot = await getJson<RunView>(ui, "/api/sessions/aaaa0001");
    await ui.hub.poll();
    world.write({ table: "events", row: toolCall("aaaa0001", 1, 3) });
    await ui.hub.poll();
    const counts = { ...(snapshot.counts.ph_aaaa0001_1 as PhaseCounts) };
    for (const delta of run.deltas()) {
      if (delta.tick <= snapshot.tick) continue;
      counts.tool_calls += delta.counts?.ph_aaaa0001_1?.tool_calls ?? 0;
    }
    const fresh = await getJson<RunView>(ui, "/api/sessions/aaaa0001");
    expect(counts.tool_calls).toBe(4);
    expect(fresh.counts.ph_aaaa0001_1?.tool_calls).toBe(4);
  });

  it("with nobody watching, moves its cursors without reading rows, and counts stay exact", async () => {
    world.write({ table: "sessions", row: sessionRow("aaaa0001", at(BASE, 0)) });
    const ui = await world.app();
    world.write(
      { table: "events", row: toolCall("aaaa0001", 1, 0) },
      { table: "events", row: toolCall("aaaa0001", 1, 1) },
    );
    await ui.hub.poll();
    expect(ui.hub.cursor.tick).toBe(1);
    const run = recorder({ adwId: "aaaa0001", phaseId: null });
    ui.hub.add(run.client);
    const snapshot = await getJson<RunView>(ui, "/api/sessions/aaaa0001");
    expect(snapshot.counts.ph_aaaa0001_1?.tool_calls).toBe(2);
    world.write({ table: "events", row: toolCall("aaaa0001", 1, 2) });
    await ui.hub.poll();
    expect(run.deltas().map((d) => [d.tick > snapshot.tick, d.counts?.ph_aaaa0001_1?.tool_calls])).toEqual([
      [true, 1],
    ]);
  });

  it("wakes on a commit by another connection without being polled", async () => {
    const { hub } = await world.app();
    const list = recorder({ adwId: null, phaseId: null });
    hub.add(list.client);
    const store = await openTraceStore(world.dbPath);
    const tracer = new Tracer({ store, eventsFile: path.join(world.dir, "events.jsonl") });
    tracer.write({ table: "sessions", row: sessionRow("cccc0003", at(BASE, 0)) });
    await tracer.flush();
    await waitFor(() => list.deltas().length > 0, "a delta after the commit");
    expect(list.deltas()[0]?.sessions?.[0]?.adw_id).toBe("cccc0003");
    await tracer.close();
    await store.close();
  });

  it("reopens a replaced database (sssf db rebuild) and tells clients to reload", async () => {
    const store = await openTraceStore(world.dbPath);
    const tracer = new Tracer({
      store,
      eventsFile: path.join(world.sessionsDir, "dddd0004", "events.jsonl"),
    });
    tracer.write({ table: "sessions", row: sessionRow("dddd0004", at(BASE, 0)) });
    await tracer.close();
    await store.close();
    const ui = await world.app();
    const list = recorder({ adwId: null, phaseId: null });
    ui.hub.add(list.client);
    await rebuildDatabase({ dbPath: world.dbPath, sessionsDir: world.sessionsDir });
    await waitFor(() => list.all("reset").length > 0, "a reset after the rebuild");
    const page = await getJson<{ sessions: { adw_id: string }[] }>(ui, "/api/sessions");
    expect(page.sessions.map((s) => s.adw_id)).toEqual(["dddd0004"]);
  });

  it("publishes an archive change to every client", async () => {
    world.write({ table: "sessions", row: sessionRow("aaaa0001", at(BASE, 0)) });
    const ui = await world.app();
    const list = recorder({ adwId: null, phaseId: null });
    ui.hub.add(list.client);
    const response = await ui.app.request("http://localhost/api/sessions/aaaa0001/archive", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"archived":true}',
    });
    expect(response.status).toBe(200);
    expect(list.deltas().map((d) => d.sessions?.[0]?.archived)).toEqual([1]);
  });
});
