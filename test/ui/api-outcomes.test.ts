/**
 * Every failure kind the run list names (`outcome-fixtures.ts`), classified from its rows: per run
 * and in the sessions page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionsPage } from "../../src/ui/server/api-types.js";
import type { RunOutcome } from "../../src/ui/server/review/review-types.js";
import { RUNS } from "./outcome-fixtures.js";
import { getJson, TraceWorld } from "./ui-fixtures.js";

let world: TraceWorld;
beforeAll(async () => {
  world = await TraceWorld.open();
});
afterAll(() => world.cleanup());

describe("the failure reason of each kind", () => {
  it("classifies each run from its structured rows, per run and in the list", async () => {
    for (const [, records] of RUNS) world.write(...records);
    const ui = await world.app();
    const page = await getJson<SessionsPage>(ui, "/api/sessions");
    for (const [adwId, , expected] of RUNS) {
      const outcome = await getJson<RunOutcome>(ui, `/api/sessions/${adwId}/outcome`);
      const reason = world.db.prepare("SELECT reason FROM sessions WHERE adw_id = ?").get(adwId) as {
        reason: string;
      };
      expect(outcome, adwId).toEqual({ adw_id: adwId, detail: reason.reason, ...expected });
      expect(page.outcomes[adwId], adwId).toEqual(outcome);
    }
  });
});
